"""The API's SSE stream under uvicorn: backlog, live events in order, resume after Last-Event-ID, the end."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from evidence import streams
from evidence.models import Run
from tests.api.helpers import serve_asgi, sse_events

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        base, stop = serve_asgi()
        yield base
        stop()


def later(action, delay_s: float = 0.5) -> threading.Thread:
    def body() -> None:
        time.sleep(delay_s)
        try:
            action()
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    return thread


def test_it_streams_backlog_and_live_events_then_ends(server, alice_key, run):
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    streams.emit(run.pk, "status", {"status": "running"})
    streams.emit(run.pk, "search", {"query": "<b>q</b>"})

    def finish() -> None:
        streams.emit(run.pk, "judgment", {"docid": "d", "probability": 0.5})
        Run.objects.filter(pk=run.pk).update(status=Run.Status.ANSWERED, finished_at=timezone.now())
        streams.emit(run.pk, "finished", {"status": "answered"})

    worker = later(finish)
    headers = {"Authorization": f"Bearer {alice_key}"}
    with httpx.stream("GET", f"{server}/api/runs/{run.pk}/stream", headers=headers, timeout=20) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        got = sse_events(response.iter_lines())
    worker.join()
    assert [(e["id"], e["event"]) for e in got] == [("1", "status"), ("2", "search"), ("3", "judgment"),
                                                  ("4", "finished")]
    assert got[1]["data"]["payload"] == {"query": "<b>q</b>"} and got[1]["data"]["seq"] == 2


def test_it_resumes_after_last_event_id_and_says_204_when_nothing_is_left(server, alice_key, run):
    for kind in ("status", "search", "answer"):
        streams.emit(run.pk, kind, {})
    Run.objects.filter(pk=run.pk).update(status=Run.Status.ANSWERED, finished_at=timezone.now())
    streams.emit(run.pk, "finished", {"status": "answered"})
    headers = {"Authorization": f"Bearer {alice_key}", "Last-Event-ID": "2"}
    with httpx.stream("GET", f"{server}/api/runs/{run.pk}/stream", headers=headers, timeout=20) as response:
        got = sse_events(response.iter_lines())
    assert [e["id"] for e in got] == ["3", "4"]
    done = httpx.get(f"{server}/api/runs/{run.pk}/stream?after=4", headers={"Authorization": f"Bearer {alice_key}"})
    assert done.status_code == 204


def test_a_stream_needs_credentials_and_ownership(server, run, mallory_key):
    assert httpx.get(f"{server}/api/runs/{run.pk}/stream").status_code == 401
    other = httpx.get(f"{server}/api/runs/{run.pk}/stream", headers={"Authorization": f"Bearer {mallory_key}"})
    assert other.status_code == 404
