"""A short version of bench/load_test.py: 4 runs through the API, 5 SSE streams, a real worker; no errors,
no lost or duplicated events."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from bench.load_test import drive
from evidence.auth_keys import create_key
from evidence.tasks import run_research
from tests.api.helpers import serve_asgi
from tests.ingesting import ingest_now
from tests.reliability.test_fault_worker import DOCS
from tests.reliability.workers import Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]


def test_concurrent_runs_and_streams_lose_nothing(user, collection, settings, tmp_path, monkeypatch):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    ingest_now(collection, DOCS.items(), embed=False)
    key = create_key(user, "load", rate_per_minute=100_000)[1]
    queue = f"evidence-load-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(
        "evidence.services.queueing.enqueue_run", lambda run_id: run_research.apply_async((run_id,), queue=queue)
    )
    worker = Worker(queue, tmp_path / "worker.log", tmp_path, concurrency=4)
    base, stop = serve_asgi()
    try:
        worker.wait_ready()
        figures = asyncio.run(drive(base, [(key, collection.pk)], runs=4, streams=5, timeout_s=90))
    finally:
        stop()
        worker.stop()
        purge(queue)
    assert figures["runs_finished"] == 4, figures
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["lost_events"] == 0 and figures["duplicated_events"] == 0
    assert figures["events_streamed"] > 0
