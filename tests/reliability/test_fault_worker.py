"""Kill the Celery worker (SIGKILL, by PID) in the middle of a run, restart it: the run ends in a defined state,
keeps its trajectory, and its event stream has every event exactly once (seq 1..N, no gap, no repeat)."""

from __future__ import annotations

import time
import uuid

import pytest

from evidence.models import Run, RunEvent
from evidence.tasks import run_research
from tests.agent.fake_openai import FakeOpenAI, slow, tool_calls
from tests.ingesting import ingest_now
from tests.reliability.workers import Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

DOCS = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors. Taken six hours before bed, 400 mg "
    b"of caffeine reduced total sleep time by more than one hour.\n",
    "walking.md": b"# Walking and memory\n\nOne year of walking increased hippocampal volume by two percent.\n",
    "diet.md": b"# Diet trial\n\nA Mediterranean diet reduced cardiovascular events by about 30 percent.\n",
}
STALE_S = 3


def wait_for(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


@pytest.fixture
def library(collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    ingest_now(collection, DOCS.items(), embed=False)
    return collection


def seqs(run: Run) -> list[int]:
    return list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))


def test_a_worker_killed_mid_run_leaves_the_run_failed_with_its_trajectory_and_every_event_once(library, tmp_path):
    queue = f"evidence-fault-{uuid.uuid4().hex[:8]}"
    with FakeOpenAI() as fake:
        # A planner that keeps searching, one slow model call at a time: the run is surely mid-way when killed.
        fake.default = slow(0.4, tool_calls(("search", {"reason": "look again", "query": "caffeine sleep"})))
        run = Run.objects.create(
            owner=library.owner,
            collection=library,
            question="How does caffeine affect sleep?",
            system="pi_serini",
            budget_s=120,
            config={"planner": "llm", "base_url": fake.base_url, "model": "gpt-4o-mini", "searcher": "bm25"},
        )
        first = Worker(
            queue, tmp_path / "worker-1.log", tmp_path, {"EVIDENCE_RUN_STALE_AFTER_S": str(STALE_S)}, pool="prefork"
        )  # the worker as `make run` starts it
        second = None
        try:
            first.wait_ready()
            run_research.apply_async((run.pk,), queue=queue)
            wait_for(
                lambda: Run.objects.filter(pk=run.pk, status="running", last_seq__gte=5).exists(),
                60,
                "the run to be running with a few events",
            )
            first.kill()
            before = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", "kind", "payload"))
            assert Run.objects.get(pk=run.pk).status == Run.Status.RUNNING  # killed mid-way: nobody ended it

            time.sleep(STALE_S + 0.5)  # the heartbeat is now stale
            second = Worker(
                queue, tmp_path / "worker-2.log", tmp_path, {"EVIDENCE_RUN_STALE_AFTER_S": str(STALE_S)}, pool="prefork"
            )
            second.wait_ready()
            wait_for(
                lambda: Run.objects.filter(pk=run.pk).exclude(status="running").exists(),
                30,
                "the restarted worker to end the orphaned run",
            )
            run.refresh_from_db()
            assert run.status == Run.Status.FAILED and "heartbeat" in run.error
            assert run.trajectory.get("surfaced"), "the trajectory so far is kept"
            assert run.finished_at is not None

            after = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", "kind", "payload"))
            assert after[: len(before)] == before, "no event written before the kill was lost or changed"
            assert [seq for seq, _, _ in after] == list(range(1, len(after) + 1)), "seqs are gapless, no repeats"
            assert [kind for _, kind, _ in after].count("finished") == 1

            # The lost task delivered again (as the broker does after its visibility timeout) is a no-op.
            assert run_research.apply_async((run.pk,), queue=queue).get(timeout=30) is None
            run.refresh_from_db()
            assert run.status == Run.Status.FAILED and seqs(run) == [seq for seq, _, _ in after]
            assert not Run.objects.filter(status=Run.Status.RUNNING).exists()
        finally:
            first.stop()
            if second is not None:
                second.stop()
            purge(queue)


def test_a_run_cancelled_while_running_ends_cancelled(library, tmp_path):
    from evidence.services.runs import cancel_run

    queue = f"evidence-fault-{uuid.uuid4().hex[:8]}"
    with FakeOpenAI() as fake:
        fake.default = slow(0.3, tool_calls(("search", {"reason": "again", "query": "caffeine"})))
        run = Run.objects.create(
            owner=library.owner,
            collection=library,
            question="Caffeine and sleep?",
            system="pi_serini",
            budget_s=120,
            config={"planner": "llm", "base_url": fake.base_url, "model": "gpt-4o-mini", "searcher": "bm25"},
        )
        worker = Worker(queue, tmp_path / "worker.log", tmp_path)
        try:
            worker.wait_ready()
            run_research.apply_async((run.pk,), queue=queue)
            wait_for(
                lambda: Run.objects.filter(pk=run.pk, status="running", last_seq__gte=3).exists(),
                60,
                "the run to be running",
            )
            assert cancel_run(run)
            wait_for(lambda: RunEvent.objects.filter(run=run, kind="finished").exists(), 30, "the run to stop")
            run.refresh_from_db()
            assert run.status == Run.Status.CANCELLED
            assert seqs(run) == list(range(1, run.last_seq + 1))
        finally:
            worker.stop()
            purge(queue)
