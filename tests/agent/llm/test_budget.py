"""The spending cap: checked before every call against its worst case, actual cost added after."""

import threading

import pytest

from evidence.agent.llm import (
    BudgetExceeded,
    ChatMessage,
    ChatRequest,
    MemoryRecorder,
    OpenAIClient,
    SpendingCap,
    worst_case_cost,
)
from tests.agent.fake_openai import error, large_output, text


def request(max_tokens: int = 1000, words: int = 10) -> ChatRequest:
    return ChatRequest(model="gpt-4o", messages=(ChatMessage("user", "evidence " * words),), max_tokens=max_tokens)


def test_it_refuses_a_call_whose_worst_case_would_cross_the_cap():
    cap = SpendingCap(1.0)
    cap.add(0.7)
    cap.check(0.3)  # landing exactly on the cap is allowed
    with pytest.raises(BudgetExceeded, match=r"cap \$1.0000 would be crossed: spent \$0.7000"):
        cap.check(0.31)
    assert cap.spent_usd == pytest.approx(0.7)


def test_reservations_keep_parallel_callers_under_the_cap():
    cap, passed, refused = SpendingCap(1.0), [], []
    barrier = threading.Barrier(20)

    def call():
        barrier.wait()
        try:
            cap.reserve(0.3)
        except BudgetExceeded:
            refused.append(1)
        else:
            passed.append(1)

    threads = [threading.Thread(target=call) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(passed), len(refused)) == (3, 17)
    for _ in passed:
        cap.settle(0.3, 0.25)
    assert cap.spent_usd == pytest.approx(0.75)
    assert cap.remaining_usd == pytest.approx(0.25)


def test_the_client_refuses_before_sending_anything(fake_openai):
    recorder = MemoryRecorder()
    cap = SpendingCap(worst_case_cost(request()) * 0.99)
    fake_openai.queue(text("never"))
    with (
        OpenAIClient(base_url=fake_openai.base_url, recorder=recorder, cap=cap) as client,
        pytest.raises(BudgetExceeded),
    ):
        client.complete(request())
    assert fake_openai.requests == [] and recorder.records == [] and cap.spent_usd == 0


def test_a_model_with_large_outputs_never_takes_spend_past_the_cap(fake_openai):
    cap, recorder = SpendingCap(0.25), MemoryRecorder()
    fake_openai.default = large_output(prompt=20)  # every reply uses all max_tokens
    calls = 0
    with OpenAIClient(base_url=fake_openai.base_url, recorder=recorder, cap=cap) as client:
        for _ in range(100):
            try:
                response = client.complete(request(max_tokens=4000))
            except BudgetExceeded:
                break
            calls += 1
            assert response.truncated and response.usage.output_tokens == 4000
            assert cap.spent_usd <= cap.cap_usd
        else:
            pytest.fail("the cap never stopped the loop")
    # Each reply costs 4,000 x $10/M = $0.04 plus a little input: six fit under $0.25, the seventh could not.
    assert calls == 6 and len(fake_openai.requests) == 6
    assert cap.spent_usd == pytest.approx(sum(r.cost_usd for r in recorder.records))
    assert cap.spent_usd <= 0.25


def test_a_failed_attempt_releases_its_reservation(fake_openai):
    worst = worst_case_cost(request())
    cap = SpendingCap(worst * 1.5)
    cap.add(worst * 0.4)  # room for exactly one worst case at a time
    fake_openai.queue(error(500, "down"), text("ok", prompt=10, completion_tokens=10))
    with OpenAIClient(base_url=fake_openai.base_url, cap=cap, sleep=lambda s: None) as client:
        assert client.complete(request()).content == "ok"
    assert cap.remaining_usd > worst * 1.0


def test_each_retry_is_checked_against_the_cap(fake_openai):
    worst = worst_case_cost(request())
    cap = SpendingCap(worst * 1.5)
    fake_openai.queue(error(503, "busy"), text("never"))
    # While the client waits to retry, a parallel caller (a judge, say) spends most of what is left.
    with (
        OpenAIClient(base_url=fake_openai.base_url, cap=cap, sleep=lambda s: cap.add(worst)) as client,
        pytest.raises(BudgetExceeded),
    ):
        client.complete(request())
    assert len(fake_openai.requests) == 1
