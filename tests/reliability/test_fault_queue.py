"""Faults on the shipped worker (prefork, as `make run` starts it): lost queue messages and a worker killed mid-ingest.

Each test injects one fault and asserts the end state: nothing stuck, nothing lost, nothing done twice.
"""

from __future__ import annotations

import time
import uuid

import pytest

from evidence.ingest import jobs
from evidence.models import Document, IngestFile, IngestJob, Run
from evidence.retrieval import index_store
from tests.ingesting import ingest_now
from tests.reliability.test_fault_worker import wait_for
from tests.reliability.workers import Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

# Short windows so a test sees the reaper act within seconds (production: minutes).
FAST_REAPER = {"EVIDENCE_REAP_EVERY_S": "1", "EVIDENCE_RESEND_AFTER_S": "1", "EVIDENCE_FILE_STALE_AFTER_S": "4"}
NOTES = {
    "caffeine.md": b"# Caffeine\n\nCaffeine blocks adenosine receptors and delays sleep onset by about an hour.\n",
    "walking.md": b"# Walking\n\nOne year of walking increased hippocampal volume by two percent.\n",
}


@pytest.fixture
def dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.EVIDENCE_RESEND_AFTER_S = 1
    return {"EVIDENCE_UPLOAD_DIR": str(tmp_path / "uploads"), **FAST_REAPER}


def test_files_and_runs_whose_messages_were_lost_are_sent_again_and_finish(collection, dirs, tmp_path):
    """A broker restart without persistence drops queued messages: the reaper sends them again."""
    ingest_now(collection, [("seed.md", b"# Seed\n\nCaffeine and sleep are related in many trials.\n")], embed=False)
    job = jobs.create_job(collection, list(NOTES.items()))  # queued, but no message was ever sent (or it was lost)
    run = Run.objects.create(owner=collection.owner, collection=collection, question="Does caffeine delay sleep?",
                             system="single_pass", config={"searcher": "bm25"})
    queue = f"evidence-lost-{uuid.uuid4().hex[:8]}"
    worker = Worker(queue, tmp_path / "worker.log", tmp_path, dirs, pool="prefork")
    started = time.monotonic()
    try:
        worker.wait_ready()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 90, "the job to end")
        wait_for(lambda: Run.objects.get(pk=run.pk).is_finished, 90, "the run to end")
        elapsed = time.monotonic() - started
        job.refresh_from_db()
        run.refresh_from_db()
        assert (job.status, job.documents_added) == ("done", 2)
        assert run.status == Run.Status.ANSWERED, run.error
        assert run.sends >= 1 and IngestFile.objects.filter(job=job, sends__gte=1).count() == 2
        print(f"lost messages: job and run finished {elapsed:.1f} s after the worker started")
    finally:
        worker.stop()
        purge(queue)


def test_a_file_whose_worker_was_killed_mid_embedding_is_taken_again_and_indexed_once(collection, dirs, tmp_path,
                                                                                      shared_data):
    pdf = sorted((shared_data / "papers" / "pdf").glob("*.pdf"))[0]
    job = jobs.create_job(collection, [(pdf.name, pdf.read_bytes())])
    record = IngestFile.objects.get(job=job)
    queue = f"evidence-kill-{uuid.uuid4().hex[:8]}"
    first = Worker(queue, tmp_path / "worker-1.log", tmp_path, dirs, pool="prefork")
    second = None
    try:
        first.wait_ready()
        from evidence.tasks import ingest_file

        ingest_file.apply_async((record.pk,), queue=queue)
        wait_for(lambda: IngestFile.objects.filter(pk=record.pk, status="embedding").exists(), 90,
                 "the file to be embedding")
        first.kill()
        killed_at = time.monotonic()
        assert IngestFile.objects.get(pk=record.pk).status == "embedding", "killed mid-way: nobody ended it"

        second = Worker(queue, tmp_path / "worker-2.log", tmp_path, dirs, pool="prefork")
        second.wait_ready()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 180, "the job to end")
        elapsed = time.monotonic() - killed_at
        record.refresh_from_db()
        assert record.status == "done" and record.attempts == 2, (record.status, record.error)
        assert Document.objects.filter(collection=collection).count() == 1
        index = index_store.load(collection.pk)
        assert sorted(index.documents.ids) == list(Document.objects.values_list("docid", flat=True))
        assert IngestJob.objects.get(pk=job.pk).status == "done"
        print(f"killed mid-embedding: the file was done {elapsed:.1f} s after the kill")
    finally:
        first.stop()
        if second is not None:
            second.stop()
        purge(queue)
