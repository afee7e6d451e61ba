"""Restart Postgres in the middle of an ingestion by real workers: no half-ingested document, and every file
ends done or failed with a clear error.

This restarts the local cluster of scripts/services.py (pg_ctl restart, about a second): other test sessions
using the same cluster at that moment see their connections drop.
"""

from __future__ import annotations

import importlib.util
import subprocess
import time
import uuid

import pytest
from django.db import connection

from evidence.ingest import jobs
from evidence.ingest.chunking import make_passages
from evidence.ingest.parsers import parse_file
from evidence.models import Document, IngestFile, IngestJob
from evidence.tasks import ingest_file
from tests.reliability.workers import ROOT, Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

SENTENCES = ["Caffeine blocks adenosine receptors in the brain.", "Sleep onset was delayed by about one hour.",
             "Participants kept a diary for two weeks.", "The effect was larger in older adults.",
             "Walking improved memory scores.", "A Mediterranean diet lowered blood pressure."]


def services():
    spec = importlib.util.spec_from_file_location("evidence_services", ROOT / "scripts" / "services.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def document(number: int) -> bytes:
    paragraphs = [" ".join(SENTENCES[(number + i + k) % len(SENTENCES)] + f" Finding {number}.{i}.{k}."
                           for k in range(3)) for i in range(25)]
    return (f"# Study {number}\n\n" + "\n\n".join(paragraphs) + "\n").encode()


def restart_postgres() -> None:
    svc = services()
    data = svc.pg_data_dir()
    if not svc.pg_running(data):
        pytest.skip("the local Postgres of scripts/services.py is not running (DATABASE_URL points elsewhere)")
    subprocess.run(svc.as_pg_user([svc.pg_bin("pg_ctl"), "-D", str(data), "-l", str(data / "server.log"), "-m",
                                   "fast", "-w", "-t", "60", "restart"]), check=True, capture_output=True)


def wait_for_database(timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        connection.close()
        try:
            connection.ensure_connection()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def test_a_postgres_restart_during_ingestion_leaves_no_half_document(collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    sources = {f"study-{n}.md": document(n) for n in range(8)}
    job = jobs.create_job(collection, list(sources.items()))
    queue = f"evidence-fault-{uuid.uuid4().hex[:8]}"
    worker = Worker(queue, tmp_path / "worker.log", tmp_path)
    try:
        worker.wait_ready()
        for file_id in jobs.pending_file_ids(job):
            ingest_file.apply_async((file_id,), queue=queue)
        deadline = time.monotonic() + 60
        while not IngestFile.objects.filter(job=job, status__in=["embedding", "done"]).exists():
            assert time.monotonic() < deadline, "ingestion never started"
            time.sleep(0.1)
        restart_postgres()
        wait_for_database()
        deadline = time.monotonic() + 45
        while IngestFile.objects.filter(job=job).exclude(status__in=["done", "failed"]).exists():
            if time.monotonic() > deadline:
                stuck = list(IngestFile.objects.filter(job=job).exclude(status__in=["done", "failed"])
                             .values_list("name", "status"))
                pytest.fail(f"files never ended after the restart: {stuck}")
            time.sleep(0.5)
    finally:
        worker.stop()
        purge(queue)

    files = list(IngestFile.objects.filter(job=job))
    for record in files:
        assert record.status in {"done", "failed"}
        if record.status == "failed":
            assert record.name in record.error or "database" in record.error.lower(), record.error
    for stored in Document.objects.filter(collection=collection):
        (parsed,) = parse_file(stored.source_name, sources[stored.source_name])
        assert stored.text == parsed.text
        assert stored.passages.count() == len(make_passages(parsed)) > 0, f"{stored.docid} lost passages"
        assert stored.regions.count() == len(parsed.regions) > 0, f"{stored.docid} lost regions"
        assert not stored.passages.filter(embedding__isnull=True).exists(), f"{stored.docid} lost vectors"
    done = {f.name for f in files if f.status == "done"}
    assert done <= set(Document.objects.filter(collection=collection).values_list("source_name", flat=True))
    assert IngestJob.objects.get(pk=job.pk).files_done == len(files)
