"""Uploads ingest under every Celery pool, with the worker command line `make run` ships (scripts/run.py).

The app once shipped a prefork worker while every test used a thread pool, and every upload failed under
prefork ("daemonic processes are not allowed to have children"). These tests run the shipped command line.
"""

from __future__ import annotations

import io
import time
import uuid
import zipfile

import pytest

from evidence.ingest import jobs
from evidence.models import Document, IngestFile, IngestJob
from evidence.tasks import ingest_file
from tests.reliability.test_fuzz_parsers import make_pdf
from tests.reliability.workers import Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

BANNER = {"prefork": "prefork", "threads": "thread", "solo": "solo"}  # how Celery's start-up banner names them
NOTE = b"# Caffeine\n\nCaffeine blocks adenosine receptors and delays sleep onset by about an hour.\n"


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("pool", ["prefork", "threads", "solo"])
def test_an_upload_with_a_zip_ingests_under_the_pool(pool, collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    pdf = make_pdf("Walking for a year increased hippocampal volume by two percent.")
    uploads = [
        ("caffeine.md", NOTE),
        ("bundle.zip", zipped({"walking.pdf": pdf, "truncated.pdf": pdf[: len(pdf) // 2]})),
    ]
    queue = f"evidence-pool-{uuid.uuid4().hex[:8]}"
    worker = Worker(queue, tmp_path / f"worker-{pool}.log", tmp_path,
                    {"EVIDENCE_UPLOAD_DIR": str(settings.EVIDENCE_UPLOAD_DIR)}, pool=pool)
    try:
        worker.wait_ready()
        job = jobs.create_job(collection, uploads)
        for file_id in jobs.pending_file_ids(job):
            ingest_file.apply_async((file_id,), queue=queue)
        deadline = time.monotonic() + 120
        while IngestJob.objects.get(pk=job.pk).status not in IngestJob.FINISHED:
            assert time.monotonic() < deadline, list(IngestFile.objects.filter(job=job).values("name", "status"))
            time.sleep(0.3)
        job.refresh_from_db()
        files = {f.name: f for f in IngestFile.objects.filter(job=job)}
        assert files["bundle.zip"].status == "unpacked"
        assert files["bundle.zip/walking.pdf"].status == "done", files["bundle.zip/walking.pdf"].error
        assert files["caffeine.md"].status == "done", files["caffeine.md"].error
        assert files["bundle.zip/truncated.pdf"].status == "failed"
        assert "daemonic" not in files["bundle.zip/truncated.pdf"].error
        assert (job.status, job.files_total, job.files_failed) == ("partial", 3, 1)
        assert Document.objects.filter(collection=collection).count() == 2
        banner = (tmp_path / f"worker-{pool}.log").read_text()
        assert f"({BANNER[pool]})" in banner, "the worker runs the pool under test"
    finally:
        worker.stop()
        purge(queue)
