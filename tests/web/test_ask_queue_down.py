"""The Ask page with the broker down: a 503 page with Retry-After within 2 s, and no run left queued."""

from __future__ import annotations

import socket
import time

import pytest

from evidence.models import Run
from evidence.services.queueing import QUEUE_DOWN
from researchapp.celery import app

pytestmark = pytest.mark.django_db


def test_a_broker_that_is_down_gives_a_503_page_and_leaves_no_run(logged_in_client, document, monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(app.conf, "broker_url", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setattr(app.conf, "result_backend", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setattr(app, "_backend_cache", app._get_backend())  # the broker's Redis holds results too
    from evidence import tasks  # noqa: F401 - imported before the clock starts, as in a running server

    started = time.perf_counter()
    response = logged_in_client.post(
        "/ask",
        {
            "collection": document.collection_id,
            "question": "Does it?",
            "system": "single_pass",
            "searcher": "bm25",
            "task": "qa",
        },
    )
    elapsed = time.perf_counter() - started

    assert response.status_code == 503
    assert response["Retry-After"]
    assert QUEUE_DOWN in response.content.decode()
    assert elapsed < 2.0, f"the 503 took {elapsed:.2f} s"
    assert not Run.objects.exists()
