"""The reaper's decisions, one pass at a time: send again with a growing interval, then end with a reason."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evidence.ingest import jobs
from evidence.models import IngestFile, IngestJob, Run
from evidence.services import reaper

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.EVIDENCE_RESEND_AFTER_S = 60
    settings.EVIDENCE_FILE_STALE_AFTER_S = 300
    log: list[tuple[str, int]] = []
    kinds = {"evidence.run_research": "run", "evidence.ingest_file": "file"}
    monkeypatch.setattr("evidence.services.queueing.send", lambda task, args: log.append((kinds[task], *args)))
    return log


def test_a_queued_run_is_sent_again_with_a_doubling_interval_then_failed(run, sent):
    now = run.created_at
    for minutes, expected in [(0.5, 0), (1, 1), (2, 1), (3, 2), (7, 3), (15, 4), (31, 5)]:
        reaper.requeue_queued_runs(now + timedelta(minutes=minutes))
        assert len(sent) == expected, (minutes, sent)
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.sends == 5
    reaper.requeue_queued_runs(now + timedelta(minutes=63))
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "No worker started this run" in run.error
    assert run.events.filter(kind="finished").count() == 1


def test_a_file_silent_while_embedding_is_queued_again_and_failed_after_three_lost_workers(collection, sent):
    job = jobs.create_job(collection, [("a.md", b"# A\n\nSome text about caffeine.\n")])
    record = IngestFile.objects.get(job=job)
    later = timezone.now() + timedelta(seconds=301)
    for attempt in (1, 2):
        IngestFile.objects.filter(pk=record.pk).update(status="embedding", attempts=attempt)
        assert reaper.requeue_stale_files(later)["files_requeued_lost_worker"] == [record.pk]
        assert IngestFile.objects.get(pk=record.pk).status == "queued"
    assert sent == [("file", record.pk)] * 2
    IngestFile.objects.filter(pk=record.pk).update(status="embedding", attempts=3)
    assert reaper.requeue_stale_files(timezone.now())["files_requeued_lost_worker"] == [], "not silent yet"
    assert reaper.requeue_stale_files(later)["files_failed_lost_worker"] == [record.pk]
    record.refresh_from_db()
    assert record.status == "failed" and record.error.startswith("a.md stopped the worker ingesting it 3 times")
    assert IngestJob.objects.get(pk=job.pk).status == "failed", "the job rolls up its file's end"


def test_a_queued_file_no_worker_ever_takes_fails_with_a_reason(collection, sent):
    job = jobs.create_job(collection, [("a.md", b"# A\n\nSome text about caffeine.\n")])
    record = IngestFile.objects.get(job=job)
    start = job.created_at
    for minutes in (1, 3, 7, 15, 31):
        reaper.requeue_queued_files(start + timedelta(minutes=minutes))
    assert len(sent) == 5
    reaper.requeue_queued_files(start + timedelta(minutes=63))
    record.refresh_from_db()
    assert record.status == "failed" and "waited over an hour for a worker" in record.error
    assert IngestJob.objects.get(pk=job.pk).status == "failed"


def test_a_stranded_file_stops_holding_back_queued_work_long_before_its_claim_is_taken_back(collection, sent, run):
    """A file whose worker went away stops beating: after a few missed beats it no longer counts as a busy worker,
    so the queued run behind it is sent again, while the file itself is only taken back after the stale window."""
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    job = jobs.create_job(collection, [("a.md", b"# A\n\nSome text about caffeine.\n")])
    record = IngestFile.objects.get(job=job)
    IngestFile.objects.filter(pk=record.pk).update(status="embedding")
    IngestJob.objects.filter(pk=job.pk).update(created_at=timezone.now())
    now = timezone.now()
    IngestFile.objects.filter(pk=record.pk).update(updated_at=now - timedelta(seconds=5))
    assert reaper.workers_busy(now), "a file beaten 5 s ago has a live worker"
    stranded_at = now - timedelta(seconds=3 * jobs.file_beat_every_s() + 1)
    IngestFile.objects.filter(pk=record.pk).update(updated_at=stranded_at)
    assert not reaper.workers_busy(now), "three missed beats: the file is stranded, not busy"
    acted = reaper.reap(now)
    assert acted["runs_resent"] == [run.pk] and ("run", run.pk) in sent
    assert acted["files_requeued_lost_worker"] == [], "the file's claim is taken back only after the stale window"
    assert IngestFile.objects.get(pk=record.pk).status == "embedding"
