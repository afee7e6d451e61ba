"""The Django recorder: every attempt a ModelCall row; replay reads the source run's successful calls."""

import pytest

from evidence.agent.llm import ChatMessage, ChatRequest, DjangoRecorder, ReplayMissing, make_client, request_hash
from evidence.models import ModelCall, Run
from tests.agent.fake_openai import FakeOpenAI, error, text

pytestmark = pytest.mark.django_db


def ask(question: str) -> ChatRequest:
    return ChatRequest(model="gpt-4o-mini", messages=(ChatMessage("user", question),), max_tokens=200)


def test_it_writes_every_attempt_and_replays_the_source_run(run):
    with FakeOpenAI() as fake:
        fake.queue(error(500, "overloaded"), text("Caffeine delays sleep.", prompt=120, completion_tokens=8, cached=64))
        client = make_client(
            "openai", base_url=fake.base_url, recorder=DjangoRecorder(run_id=run.pk), sleep=lambda s: None
        )
        client.complete(ask("Does caffeine delay sleep?"))

    failed, ok = ModelCall.objects.filter(run=run).order_by("id")
    assert (failed.attempt, failed.error, failed.response) == (1, "HTTP 500: overloaded", {})
    assert (ok.attempt, ok.error, ok.provider, ok.model) == (2, "", "openai", "gpt-4o-mini")
    assert ok.request_hash == request_hash(ask("Does caffeine delay sleep?"))
    assert ok.request["messages"] == [{"role": "user", "content": "Does caffeine delay sleep?"}]
    assert (ok.input_tokens, ok.cached_tokens, ok.output_tokens) == (120, 64, 8)
    assert ok.cost_usd > 0 and ok.latency_s > 0

    replay_run = Run.objects.create(owner=run.owner, collection=run.collection, question=run.question)
    replay = make_client(
        "replay", source=DjangoRecorder(source_run_id=run.pk), recorder=DjangoRecorder(run_id=replay_run.pk)
    )
    assert replay.complete(ask("Does caffeine delay sleep?")).content == "Caffeine delays sleep."
    [row] = ModelCall.objects.filter(run=replay_run)
    assert (row.provider, row.request_hash, row.cost_usd) == ("replay", ok.request_hash, ok.cost_usd)


def test_lookup_is_scoped_to_the_source_run(run):
    other = Run.objects.create(owner=run.owner, collection=run.collection, question="Another question")
    with FakeOpenAI() as fake:
        fake.queue(text("from the other run"))
        make_client("openai", base_url=fake.base_url, recorder=DjangoRecorder(run_id=other.pk)).complete(ask("q"))

    assert DjangoRecorder(source_run_id=other.pk).lookup(request_hash(ask("q"))) is not None
    with pytest.raises(ReplayMissing, match="call #1"):
        make_client("replay", source=DjangoRecorder(source_run_id=run.pk)).complete(ask("q"))
