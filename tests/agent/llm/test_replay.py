"""Replay from recorded calls (no server, no key), its failure message, and the offline provider."""

import pytest

from evidence.agent.llm import (
    BudgetExceeded,
    ChatMessage,
    ChatRequest,
    Conversation,
    MemoryRecorder,
    OfflineLLMError,
    ReplayMissing,
    SpendingCap,
    ToolSpec,
    make_client,
    request_hash,
    worst_case_cost,
)
from tests.agent.fake_openai import FakeOpenAI, error, text, tool_calls

SEARCH = ToolSpec("search", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})


def conversation(question: str = "Does caffeine delay sleep?") -> Conversation:
    chat = Conversation(system="You are a deep research agent.")
    chat.add_user(f"Question: {question}")
    return chat


def record_run(question: str = "Does caffeine delay sleep?") -> MemoryRecorder:
    """Run two turns against the fake server (with a retried 429) and return what was recorded."""
    recorder = MemoryRecorder()
    chat = conversation(question)
    with FakeOpenAI() as fake:
        fake.queue(
            error(429, "slow down", retry_after="0"),
            tool_calls(("search", {"query": "caffeine sleep"})),
            text("Explanation: yes [d1]\nExact Answer: yes\nConfidence: 80%", prompt=300, completion_tokens=40),
        )
        client = make_client(
            "openai", base_url=fake.base_url, api_key="sk-test", recorder=recorder, sleep=lambda s: None
        )
        reply = client.complete(chat.request("gpt-4o-mini", tools=[SEARCH]))
        chat.add_assistant(reply)
        chat.add_tool_result(reply.tool_calls[0], "s1: [d1] Caffeine and sleep")
        client.complete(chat.request("gpt-4o-mini", tools=[SEARCH]))
    return recorder


def test_replay_answers_from_the_recording_with_no_server_and_no_key(monkeypatch):
    source = record_run()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: any HTTP would fail
    replayed = MemoryRecorder()
    client = make_client("replay", source=source, recorder=replayed)

    chat = conversation()
    first = client.complete(chat.request("gpt-4o-mini", tools=[SEARCH]))
    assert first.tool_calls[0].arguments == {"query": "caffeine sleep"}
    chat.add_assistant(first)
    chat.add_tool_result(first.tool_calls[0], "s1: [d1] Caffeine and sleep")
    second = client.complete(chat.request("gpt-4o-mini", tools=[SEARCH]))

    assert second.content.startswith("Explanation: yes [d1]")
    assert (second.usage.input_tokens, second.usage.output_tokens) == (300, 40)
    originals = [r for r in source.records if r.ok]
    assert [r.request_hash for r in replayed.records] == [r.request_hash for r in originals]
    assert [r.provider for r in replayed.records] == ["replay", "replay"]
    assert [r.cost_usd for r in replayed.records] == [r.cost_usd for r in originals]


def test_a_changed_prompt_fails_replay_naming_the_call():
    client = make_client("replay", source=record_run())
    chat = conversation()
    first = client.complete(chat.request("gpt-4o-mini", tools=[SEARCH]))
    chat.add_assistant(first)
    chat.add_tool_result(first.tool_calls[0], "s1: [d7] a different ranking this time")
    changed = chat.request("gpt-4o-mini", tools=[SEARCH])

    with pytest.raises(ReplayMissing) as raised:
        client.complete(changed)
    message = str(raised.value)
    assert "call #2" in message
    assert "gpt-4o-mini" in message
    assert request_hash(changed)[:12] in message
    assert "tool: 's1: [d7] a different ranking this time'" in message


def test_the_missing_message_cuts_the_last_message_at_80_characters():
    client = make_client("replay", source=MemoryRecorder())
    long = "x" * 200
    with pytest.raises(ReplayMissing, match=r"call #1 .*user: 'x{80}'\."):
        client.complete(ChatRequest(model="gpt-4o", messages=(ChatMessage("user", long),)))


def test_failed_attempts_are_never_served():
    source = record_run()
    failed = next(r for r in source.records if not r.ok)
    assert source.lookup(failed.request_hash).ok  # the same hash's successful attempt is served instead


def test_repeated_requests_replay_their_replies_in_order():
    recorder = MemoryRecorder()
    request = conversation().request("gpt-4o-mini")
    with FakeOpenAI() as fake:
        fake.queue(text("first"), text("second"))
        client = make_client("openai", base_url=fake.base_url, recorder=recorder)
        client.complete(request)
        client.complete(request)
    replay = make_client("replay", source=recorder)
    assert [replay.complete(request).content for _ in range(3)] == ["first", "second", "second"]


def test_replay_stops_for_budget_where_the_original_did():
    def run(client) -> list[str]:
        chat, seen = conversation(), []
        try:
            for _ in range(3):
                reply = client.complete(chat.request("gpt-4o", tools=[SEARCH]))
                seen.append(reply.tool_calls[0].arguments["query"])
                chat.add_assistant(reply)
                chat.add_tool_result(reply.tool_calls[0], "nothing new")
        except BudgetExceeded:
            seen.append("budget")
        return seen

    first_worst = worst_case_cost(conversation().request("gpt-4o", tools=[SEARCH]))
    cap_usd = first_worst * 1.001  # the first call fits; the second, with a longer prompt, cannot
    recorder = MemoryRecorder()
    with FakeOpenAI() as fake:
        fake.queue(tool_calls(("search", {"query": "a"})), tool_calls(("search", {"query": "b"})))
        original = run(make_client("openai", base_url=fake.base_url, recorder=recorder, cap=SpendingCap(cap_usd)))
    replayed = run(make_client("replay", source=recorder, cap=SpendingCap(cap_usd)))
    assert original == replayed == ["a", "budget"]


def test_offline_refuses_loudly():
    with pytest.raises(OfflineLLMError, match="never calls a language model"):
        make_client("offline").complete(conversation().request("gpt-4o-mini"))


def test_unknown_providers_and_replay_without_a_source_are_errors():
    with pytest.raises(ValueError, match="unknown LLM provider 'anthropic'"):
        make_client("anthropic")
    with pytest.raises(ValueError, match="needs source="):
        make_client("replay")
