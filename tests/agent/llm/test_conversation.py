"""The append-only conversation and the Pi-Serini final answer format."""

import pytest

from evidence.agent.llm import ChatResponse, Conversation, ToolCall, parse_final_answer
from evidence.agent.llm.conversation import parse_confidence


def test_it_only_ever_appends():
    conversation = Conversation(system="You are a deep research agent.")
    conversation.add_user("Question: does caffeine delay sleep?")
    first = conversation.request("gpt-4o-mini")
    call = ToolCall.create("call_1", "search", {"reason": "start", "query": "caffeine sleep"})
    conversation.add_assistant(ChatResponse(content=None, tool_calls=(call,), finish_reason="tool_calls"))
    conversation.add_tool_result(call, "s1: 5 hits")
    conversation.add_steer("Time is nearly up: stop using tools and submit your answer now.")
    second = conversation.request("gpt-4o-mini")

    # The earlier request is an exact prefix of the later one, so the provider's prefix cache hits.
    assert second.messages[: len(first.messages)] == first.messages
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "tool", "user"]
    assert second.messages[3].tool_call_id == "call_1"
    assert isinstance(conversation.messages, tuple)
    with pytest.raises(AttributeError):
        conversation.messages[0].content = "rewritten"  # messages are frozen


def test_it_refuses_a_user_message_while_tool_calls_are_unanswered():
    conversation = Conversation()
    calls = (ToolCall.create("a", "search", {}), ToolCall.create("b", "read_document", {}))
    conversation.add_assistant(ChatResponse(content=None, tool_calls=calls))
    conversation.add_tool_result(calls[0], "ok")
    assert [c.id for c in conversation.pending_tool_calls()] == ["b"]
    with pytest.raises(ValueError, match=r"read_document \(b\)"):
        conversation.add_steer("submit now")
    conversation.add_tool_result(calls[1], "blocked: the time budget is spent")
    conversation.add_steer("submit now")


def test_it_parses_the_final_answer_format():
    text = (
        "Explanation: Caffeine blocks adenosine receptors [caffeine]. It delays sleep onset [sleep-2].\n"
        "Exact Answer: about an hour\n"
        "Confidence: 85%"
    )
    explanation, exact, confidence = parse_final_answer(text)
    assert explanation == "Caffeine blocks adenosine receptors [caffeine]. It delays sleep onset [sleep-2]."
    assert exact == "about an hour"
    assert confidence == pytest.approx(0.85)


def test_it_parses_bold_labels_on_one_line_and_template_braces():
    answer = parse_final_answer("**Explanation:** {It does [d1].} **Exact Answer:** {Yes} **Confidence:** 0.9")
    assert answer == ("It does [d1].", "Yes", pytest.approx(0.9))


def test_it_copes_with_missing_parts():
    assert parse_final_answer("I could not find it.") == ("I could not find it.", "", None)
    assert parse_final_answer("") == ("", "", None)
    no_confidence = parse_final_answer("Explanation: because [d1]\nExact Answer: 42")
    assert no_confidence == ("because [d1]", "42", None)
    no_explanation = parse_final_answer("Some reasoning first.\nExact Answer: Paris\nConfidence: high")
    assert no_explanation == ("Some reasoning first.", "Paris", None)


def test_a_repeated_label_takes_the_last_one():
    text = "Exact Answer: draft\nLet me check again.\nExplanation: checked [d2]\nExact Answer: final\nConfidence: 70%"
    assert parse_final_answer(text).exact_answer == "final"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("85%", 0.85),
        ("85 %", 0.85),
        ("0.85", 0.85),
        ("85", 0.85),
        ("150%", 1.0),
        ("100%", 1.0),
        ("0", 0.0),
        ("unsure", None),
    ],
)
def test_confidence_is_read_as_a_fraction(text, value):
    assert parse_confidence(text) == (pytest.approx(value) if value is not None else None)
