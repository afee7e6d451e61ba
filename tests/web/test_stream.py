"""The SSE stream under uvicorn: backlog, resume from Last-Event-ID or ?after=, live NOTIFY, the end."""

from __future__ import annotations

import statistics
import time

import httpx
import pytest
from django.utils import timezone

from evidence import streams
from evidence.models import Run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def read_messages(response: httpx.Response, until: str = "finished", limit_s: float = 20.0):
    """Parse SSE messages as (id, event, data, received_at) until an event named `until`."""
    messages, current = [], {"id": None, "event": "message", "data": []}
    deadline = time.monotonic() + limit_s
    for line in response.iter_lines():
        if time.monotonic() > deadline:
            break
        if line == "":
            if current["data"]:
                messages.append((current["id"], current["event"], "\n".join(current["data"]), time.perf_counter()))
                if current["event"] == until:
                    break
            current = {"id": None, "event": "message", "data": []}
        elif line.startswith("id: "):
            current["id"] = line[4:]
        elif line.startswith("event: "):
            current["event"] = line[7:]
        elif line.startswith("data: "):
            current["data"].append(line[6:])
    return messages


def running(run: Run) -> Run:
    run.status, run.started_at = Run.Status.RUNNING, timezone.now()
    run.save(update_fields=["status", "started_at"])
    return run


def finish(run: Run) -> None:
    Run.objects.filter(pk=run.pk).update(status=Run.Status.ANSWERED, finished_at=timezone.now())
    streams.emit(run.pk, "finished", {"status": "answered", "error": "", "funnel": {}, "elapsed_s": 1})


def test_it_sends_the_backlog_then_live_events_then_ends(asgi_server, session_cookie, run, in_thread):
    running(run)
    streams.emit(run.pk, "status", {"status": "running", "system": "dual", "question": "q"})
    streams.emit(run.pk, "search", {"query": "q1", "top": []})

    def later() -> None:
        time.sleep(0.5)
        streams.emit(run.pk, "judgment", {"docid": "d", "goal": "g", "probability": 0.5})
        finish(run)

    with (httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=20) as http,
          http.stream("GET", f"/runs/{run.pk}/stream?after=1") as response):
        assert response.headers["content-type"].startswith("text/event-stream")
        in_thread(later)
        messages = read_messages(response)
    steps = [(m[0], m[1]) for m in messages if m[1] == "step"]
    assert steps == [("2", "step"), ("3", "step"), ("4", "step")]
    assert 'data-kind="judgment"' in next(m[2] for m in messages if m[0] == "3")
    assert messages[-1][1] == "finished"
    assert any(m[1] == "metrics" for m in messages)


def test_it_resumes_after_last_event_id(asgi_server, session_cookie, run):
    running(run)
    for n in range(4):
        streams.emit(run.pk, "search", {"query": f"q{n}", "top": []})
    finish(run)
    with httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=20) as http:
        headers = {"Last-Event-ID": "3"}
        with http.stream("GET", f"/runs/{run.pk}/stream?after=1", headers=headers) as response:
            messages = read_messages(response)
        assert [m[0] for m in messages if m[1] == "step"] == ["4", "5"]
        # Nothing left after the last event of a finished run: 204 stops the browser reconnecting.
        assert http.get(f"/runs/{run.pk}/stream", headers={"Last-Event-ID": "5"}).status_code == 204


def test_it_hides_another_users_stream(asgi_server, session_cookie, other_run):
    with httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=10) as http:
        assert http.get(f"/runs/{other_run.pk}/stream").status_code == 404


def test_it_requires_login(asgi_server, run):
    with httpx.Client(base_url=asgi_server, timeout=10) as http:
        response = http.get(f"/runs/{run.pk}/stream")
    assert response.status_code == 302


def test_it_measures_streaming_latency(asgi_server, session_cookie, run, capsys, in_thread):
    """Time from emit() committing an event to the SSE client receiving it, over 20 events."""
    running(run)
    sent: dict[str, float] = {}

    def writer() -> None:
        time.sleep(0.5)
        for n in range(20):
            event = streams.emit(run.pk, "search", {"query": f"q{n}", "top": []})
            sent[str(event.seq)] = time.perf_counter()
            time.sleep(0.1)
        finish(run)

    with (httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=30) as http,
          http.stream("GET", f"/runs/{run.pk}/stream") as response):
        in_thread(writer)
        messages = read_messages(response, limit_s=30)
    latencies = sorted((received - sent[seq]) * 1000 for seq, kind, _data, received in messages
                       if kind == "step" and seq in sent)
    assert len(latencies) == 20
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * len(latencies)) - 1]
    with capsys.disabled():
        print(f"\nSSE latency emit->client over {len(latencies)} events: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
              f"max {latencies[-1]:.1f} ms")
    assert p95 < 1000
