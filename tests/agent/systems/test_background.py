"""Evidence mining in the background: inline outside a worker, a Celery task inside one, leads as JSON."""

from __future__ import annotations

import os

import pytest

from evidence.agent.systems import background as background
from evidence.judge.localize import EvidenceSpan
from evidence.judge.mining import Lead
from evidence.models import Run, RunEvent
from evidence.tasks import run_research
from tests.ingesting import ingest_now

LEAD = Lead("d1", 0.75, ("caffeine", "sleep"), (EvidenceSpan("d1", 3, 9, "quote!", 2, 0.8, 0.6, "caffeine"),))


def test_leads_survive_the_trip_through_json():
    assert background.leads_from_json(background.leads_to_json([LEAD])) == [LEAD]


def test_outside_a_worker_mining_is_done_at_once(monkeypatch):
    monkeypatch.setattr(background, "mine_qa", lambda judge, question, units, clues: [LEAD])
    batch = background.start_mining(object(), {}, 1, "question", ["a unit"], ["clue"])  # type: ignore[list-item]
    assert batch.ready()
    assert batch.take(deadline=0.0) == ([LEAD], "here")


class Pending:
    """A Celery result no worker ever starts."""

    state = "PENDING"
    revoked = False

    def ready(self) -> bool:
        return False

    def revoke(self) -> None:
        self.revoked = True


def test_a_batch_no_worker_takes_is_mined_in_place(monkeypatch):
    monkeypatch.setattr(background, "GRACE_S", 0.0)
    batch = background.MiningBatch(inline=lambda: [LEAD], result=Pending())
    assert batch.take(deadline=float("inf")) == ([LEAD], "in place")
    assert batch.result.revoked


def test_a_batch_unfinished_at_the_deadline_is_dropped():
    batch = background.MiningBatch(inline=lambda: [LEAD], result=Pending())
    assert batch.take(deadline=0.0) == ([], "dropped")


NOTES = {
    f"note{i}.md": f"# Trial {i}\n\nIn trial {i}, caffeine taken at night reduced total sleep by {10 + i} minutes "
    f"among {50 + i} adults.\n".encode()
    for i in range(16)
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_a_run_in_a_worker_mines_in_the_background(celery_worker, collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    ingest_now(collection, NOTES.items())
    run = Run.objects.create(
        owner=collection.owner, collection=collection, question="How much does caffeine reduce sleep?", system="dual"
    )
    status = run_research.apply_async((run.pk,), queue=os.environ["EVIDENCE_TEST_QUEUE"]).get(timeout=120)
    assert status == Run.Status.ANSWERED
    mined = [e.payload for e in RunEvent.objects.filter(run=run, kind="mining")]
    assert mined and all(m["mined"] in {"worker", "in place"} for m in mined), mined
    seqs = list(RunEvent.objects.filter(run=run).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
