"""Tasks are idempotent: a repeated ingest, run, reap or cancel changes nothing the first one did."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evidence import tasks
from evidence.ingest import jobs
from evidence.models import Document, Passage, Run, RunEvent
from evidence.services.runs import cancel_run, reap_stale_runs
from tests.ingesting import ingest_now
from tests.reliability.test_fault_worker import DOCS

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(collection, settings, tmp_path, monkeypatch):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    monkeypatch.setattr(jobs, "_embedder", lambda: lambda texts: __import__("numpy").zeros((len(texts), 384)))
    return collection


def test_a_repeated_ingest_task_is_a_no_op(library):
    job = jobs.create_job(library, list(DOCS.items()))
    file_ids = jobs.pending_file_ids(job)
    assert [tasks.ingest_file(file_id) for file_id in file_ids] == ["done"] * len(DOCS)
    counts = (Document.objects.count(), Passage.objects.count())
    assert [tasks.ingest_file(file_id) for file_id in file_ids] == [None] * len(DOCS)
    assert (Document.objects.count(), Passage.objects.count()) == counts
    job.refresh_from_db()
    assert job.files_done == len(DOCS) and job.status == "done"


def test_a_repeated_run_task_is_a_no_op(library):
    ingest_now(library, DOCS.items(), embed=False)
    run = Run.objects.create(
        owner=library.owner,
        collection=library,
        question="Does caffeine reduce sleep?",
        system="single_pass",
        config={"searcher": "bm25"},
    )
    assert tasks.run_research(run.pk) == "answered"
    events = list(RunEvent.objects.filter(run=run).values_list("seq", "kind"))
    assert tasks.run_research(run.pk) is None
    assert list(RunEvent.objects.filter(run=run).values_list("seq", "kind")) == events


def test_reaping_twice_ends_a_run_once(run):
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        started_at=timezone.now() - timedelta(hours=1),
        heartbeat_at=timezone.now() - timedelta(hours=1),
    )
    assert reap_stale_runs(stale_after_s=60) == [run.pk]
    assert reap_stale_runs(stale_after_s=60) == []
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


def test_cancelling_twice_ends_a_run_once(run):
    assert cancel_run(run) is True
    assert cancel_run(run) is False
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1
    assert tasks.run_research(run.pk) is None  # the queued task, delivered after the cancel, does nothing
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
