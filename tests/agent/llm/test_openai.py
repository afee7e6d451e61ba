"""The openai provider against the fake server: tool calls, retries in our code, errors, usage and cost."""

import time

import pytest

from evidence.agent.llm import (
    ChatMessage,
    ChatRequest,
    LLMError,
    LLMHTTPError,
    LLMUnavailable,
    MemoryRecorder,
    OpenAIClient,
    ToolSpec,
    make_client,
    request_hash,
)
from tests.agent.fake_openai import error, slow, text, tool_calls

SEARCH = ToolSpec(
    name="search",
    description="Send a raw lexical query to the index.",
    parameters={
        "type": "object",
        "properties": {"reason": {"type": "string"}, "query": {"type": "string"}},
        "required": ["reason", "query"],
    },
)


def ask(question: str = "Does caffeine delay sleep?", **params) -> ChatRequest:
    return ChatRequest(
        model="gpt-4o-mini",
        messages=(ChatMessage("system", "You are a research agent."), ChatMessage("user", question)),
        tools=(SEARCH,),
        **params,
    )


def client_for(fake, recorder=None, sleeps=None, **options) -> OpenAIClient:
    return OpenAIClient(
        base_url=fake.base_url,
        api_key="sk-test",
        recorder=recorder,
        sleep=(sleeps.append if sleeps is not None else lambda s: None),
        **options,
    )


def test_it_round_trips_a_tool_call(fake_openai):
    fake_openai.queue(tool_calls(("search", {"reason": "find the claim", "query": "caffeine sleep onset"})))
    with client_for(fake_openai) as client:
        response = client.complete(ask(temperature=0.0, max_tokens=300))

    assert response.finish_reason == "tool_calls"
    [call] = response.tool_calls
    assert (call.id, call.name) == ("call_1", "search")
    assert call.arguments == {"reason": "find the claim", "query": "caffeine sleep onset"}
    assert call.raw_arguments == '{"reason": "find the claim", "query": "caffeine sleep onset"}'
    [sent] = fake_openai.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer sk-test"
    assert sent.body["tools"] == [SEARCH.to_openai()]
    assert sent.body["tools"][0]["type"] == "function"
    assert sent.body["temperature"] == 0.0
    assert sent.body["max_tokens"] == 300
    assert sent.body["messages"][1] == {"role": "user", "content": "Does caffeine delay sleep?"}


def test_it_sends_the_tool_result_back_in_openai_form(fake_openai):
    fake_openai.queue(tool_calls(("search", {"reason": "r", "query": "q"})), text("Explanation: ..."))
    with client_for(fake_openai) as client:
        first = client.complete(ask())
        request = ask()
        messages = (
            *request.messages,
            first.as_message(),
            ChatMessage("tool", "s1: 5 hits", tool_call_id=first.tool_calls[0].id, name="search"),
        )
        second = client.complete(ChatRequest(model="gpt-4o-mini", messages=messages, tools=(SEARCH,)))

    assert second.content == "Explanation: ..."
    sent = fake_openai.requests[1].body["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"reason": "r", "query": "q"}'},
            }
        ],
    }
    assert sent[3] == {"role": "tool", "content": "s1: 5 hits", "tool_call_id": "call_1", "name": "search"}


def test_it_keeps_bad_tool_arguments_with_an_error(fake_openai):
    fake_openai.queue(tool_calls(("search", '{"reason": "r", "query": '), ("search", "[1, 2]")))
    with client_for(fake_openai) as client:
        truncated, not_object = client.complete(ask()).tool_calls

    assert truncated.arguments == {} and "not valid JSON" in truncated.error
    assert truncated.raw_arguments == '{"reason": "r", "query": '
    assert "must be a JSON object" in not_object.error


def test_it_records_tokens_cost_cached_tokens_and_latency(fake_openai):
    recorder = MemoryRecorder()
    fake_openai.queue(slow(0.05, text("ok", prompt=10_000, completion_tokens=1_000, cached=4_000)))
    with client_for(fake_openai, recorder) as client:
        response = client.complete(ask())

    assert (response.usage.input_tokens, response.usage.cached_tokens, response.usage.output_tokens) == (
        10_000,
        4_000,
        1_000,
    )
    [record] = recorder.records
    assert record.ok and record.attempt == 1 and record.provider == "openai" and record.model == "gpt-4o-mini"
    assert record.request_hash == request_hash(ask())
    assert (record.input_tokens, record.cached_tokens, record.output_tokens) == (10_000, 4_000, 1_000)
    # gpt-4o-mini: 6,000 fresh at $0.15/M, 4,000 cached at $0.075/M, 1,000 out at $0.60/M
    assert record.cost_usd == pytest.approx((6_000 * 0.15 + 4_000 * 0.075 + 1_000 * 0.60) / 1e6)
    assert 0.05 <= record.latency_s < 2
    assert record.response["content"] == "ok"
    assert record.response["server_model"] == "fake-model-2025-01-01"


def test_it_retries_429_honouring_retry_after_and_records_each_attempt(fake_openai):
    recorder, sleeps = MemoryRecorder(), []
    fake_openai.queue(
        error(429, "Rate limit reached", retry_after="7"), error(429, "again", retry_after="999"), text("done")
    )
    with client_for(fake_openai, recorder, sleeps, retry_after_max_s=20) as client:
        assert client.complete(ask()).content == "done"

    assert sleeps == [7.0, 20.0]  # the server's wait, capped
    assert [r.attempt for r in recorder.records] == [1, 2, 3]
    assert [r.ok for r in recorder.records] == [False, False, True]
    assert recorder.records[0].error == "HTTP 429: Rate limit reached"
    assert recorder.records[0].response is None and recorder.records[0].cost_usd == 0
    assert len({r.request_hash for r in recorder.records}) == 1
    assert len(fake_openai.requests) == 3


def test_it_backs_off_exponentially_with_seeded_jitter_on_500(fake_openai):
    def run(seed):
        sleeps = []
        fake_openai.queue(error(500, "boom"), error(502, "bad gateway"), error(503, "busy"), text("ok"))
        with client_for(fake_openai, sleeps=sleeps, backoff_base_s=1.0, seed=seed) as client:
            client.complete(ask())
        return sleeps

    first, again = run(seed=3), run(seed=3)
    assert first == again  # deterministic for a seed
    assert len(first) == 3
    for i, delay in enumerate(first):
        assert 0.5 * 2**i <= delay <= 2**i


def test_it_retries_a_timeout_then_succeeds(fake_openai):
    recorder = MemoryRecorder()
    fake_openai.queue(slow(0.6, text("too late")), text("in time"))
    with client_for(fake_openai, recorder, timeout_s=0.2) as client:
        assert client.complete(ask()).content == "in time"

    failed, ok = recorder.records
    assert failed.attempt == 1 and failed.error.startswith("timeout after 0.2 s")
    assert ok.attempt == 2 and ok.ok


def test_it_retries_a_refused_connection_and_gives_up_with_the_last_error():
    recorder = MemoryRecorder()
    # Port 9 on loopback: nothing listens there, so every attempt is a connection error.
    with (
        OpenAIClient(
            base_url="http://127.0.0.1:9/v1", recorder=recorder, sleep=lambda s: None, max_attempts=3
        ) as client,
        pytest.raises(LLMUnavailable) as raised,
    ):
        client.complete(ask())

    assert raised.value.attempts == 3
    assert "connection error" in str(raised.value)
    assert [r.attempt for r in recorder.records] == [1, 2, 3]


def test_it_gives_up_after_max_attempts_of_500(fake_openai):
    recorder = MemoryRecorder()
    fake_openai.queue(*[error(500, "still down")] * 4)
    with client_for(fake_openai, recorder) as client, pytest.raises(LLMUnavailable, match="4 attempt"):
        client.complete(ask())
    assert [r.error for r in recorder.records] == ["HTTP 500: still down"] * 4


def test_it_does_not_retry_400_and_raises_the_server_message(fake_openai):
    recorder = MemoryRecorder()
    fake_openai.queue(error(400, "Unsupported parameter: 'max_tokens'"), text("never sent"))
    with client_for(fake_openai, recorder) as client, pytest.raises(LLMHTTPError) as raised:
        client.complete(ask())

    assert raised.value.status == 400
    assert "HTTP 400: Unsupported parameter: 'max_tokens'" in str(raised.value)
    assert len(fake_openai.requests) == 1
    [record] = recorder.records
    assert record.attempt == 1 and "HTTP 400" in record.error


def test_it_uses_max_completion_tokens_for_reasoning_models(fake_openai):
    fake_openai.queue(text("ok"))
    with client_for(fake_openai) as client:
        client.complete(ChatRequest(model="o4-mini", messages=(ChatMessage("user", "hi"),), max_tokens=64))
    body = fake_openai.requests[0].body
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body and "temperature" not in body


def test_it_passes_extra_parameters_through(fake_openai):
    fake_openai.queue(text("{}"))
    with client_for(fake_openai) as client:
        client.complete(ask(extra={"response_format": {"type": "json_object"}, "seed": 0}))
    assert fake_openai.requests[0].body["response_format"] == {"type": "json_object"}


def test_it_needs_a_key_for_a_remote_endpoint(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="OPENAI_API_KEY is not set"):
        make_client("openai", base_url="https://api.openai.com/v1")


def test_it_sends_no_authorization_to_a_local_server_without_a_key(fake_openai, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_openai.queue(text("ok"))
    with OpenAIClient(base_url=fake_openai.base_url) as client:
        client.complete(ask())
    assert "Authorization" not in fake_openai.requests[0].headers


def test_it_reads_retry_after_in_seconds_milliseconds_and_http_date():
    from email.utils import formatdate

    import httpx

    from evidence.agent.llm.openai_compat import retry_after

    assert retry_after(httpx.Headers({"Retry-After": "2.5"})) == 2.5
    assert retry_after(httpx.Headers({"retry-after-ms": "1500", "Retry-After": "9"})) == 1.5
    assert 25 <= retry_after(httpx.Headers({"Retry-After": formatdate(time.time() + 30, usegmt=True)})) <= 30
    assert retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert retry_after(httpx.Headers({})) is None


def test_it_stops_retrying_when_the_wait_would_pass_the_deadline(fake_openai):
    recorder, sleeps = MemoryRecorder(), []
    fake_openai.queue(error(429, "busy", retry_after="10"), text("too late to matter"))
    with (
        client_for(fake_openai, recorder, sleeps, deadline=time.monotonic() + 5) as client,
        pytest.raises(LLMUnavailable, match="1 attempt"),
    ):
        client.complete(ask())
    assert sleeps == [] and len(recorder.records) == 1
