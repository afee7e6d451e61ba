"""The run page: complete without JS once finished, live (SSE) while running; the polling fallback."""

from __future__ import annotations

import pytest

from evidence import streams
from evidence.models import Run

pytestmark = pytest.mark.django_db


def test_it_renders_a_finished_run_completely(logged_in_client, finished_run):
    response = logged_in_client.get(f"/runs/{finished_run.pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "sse-connect" not in html
    for kind in ("status", "plan", "search", "judgment", "evidence", "answer", "finished"):
        assert f'data-kind="{kind}"' in html
    span = finished_run.spans.get()
    assert f"/runs/{finished_run.pk}/audit?span={span.pk}#span" in html
    assert "characters 37–76" in html
    assert "0.91" in html  # the judgment's probability


def test_it_streams_a_running_run(logged_in_client, run):
    run.status = Run.Status.RUNNING
    run.save(update_fields=["status"])
    streams.emit(run.pk, "status", {"status": "running", "system": "dual", "question": run.question})
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert f'sse-connect="/runs/{run.pk}/stream?after=1"' in html
    assert 'sse-swap="step" hx-swap="beforeend"' in html
    assert 'hx-trigger="sse:finished"' in html


def test_it_renders_unknown_kinds_generically(logged_in_client, run):
    streams.emit(run.pk, "novel_step", {"detail": "something new"})
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'data-kind="novel_step"' in html
    assert "something new" in html


def test_it_polls_events_after_a_seq(logged_in_client, finished_run):
    response = logged_in_client.get(f"/runs/{finished_run.pk}/events?after=5")
    html = response.content.decode()
    assert response["X-Last-Seq"] == "7"
    assert response["X-Run-Finished"] == "true"
    assert 'id="ev-6"' in html and 'id="ev-7"' in html and 'id="ev-5"' not in html


def test_it_serves_the_answer_fragment_to_htmx(logged_in_client, finished_run):
    response = logged_in_client.get(f"/runs/{finished_run.pk}/?part=answer", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert 'id="answer"' in html and "<html" not in html


def test_it_names_the_documents_a_run_was_limited_to(logged_in_client, run, document):
    run.config = {"searcher": "hybrid", "scope_docids": ["caffeine", "gone"]}
    run.save(update_fields=["config"])
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert f'Only in: <a href="/documents/{document.pk}/">Caffeine and sleep</a></p>' in html
