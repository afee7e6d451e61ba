"""A run never goes quiet: after a few silent seconds a progress event says what it is doing and how far along."""

from __future__ import annotations

import time

import pytest

from evidence.agent.core import progress, units
from evidence.agent.core.progress import PROGRESS, Ticker
from evidence.models import Region, Run, RunEvent
from evidence.services.runs import execute_run
from evidence.views.timeline import entries, progress_words


def test_the_ticker_speaks_only_into_silence_and_names_the_step():
    said: list[tuple[str, dict]] = []
    ticker = Ticker(7, lambda _run, kind, payload=None: said.append((kind, payload or {})), quiet_s=0.2).start()
    token = progress._current.set(ticker)
    try:
        ticker.emit(7, "search", {"query": "q"})
        with progress.step("Preparing the sentences of “A” for reading", total=10) as advance:
            advance(4)
            time.sleep(0.9)  # the ticker speaks at 0.2 s and 0.4 s of silence, at least
        ticker.emit(7, "judgment", {})
        time.sleep(0.1)
        assert [k for k, _ in said].count(PROGRESS) >= 2 and said[-1][0] == "judgment", "nothing while it speaks"
        ticking = [p for k, p in said if k == PROGRESS]
        assert ticking[0]["what"] == "Preparing the sentences of “A” for reading"
        assert (ticking[0]["done"], ticking[0]["total"], ticking[0]["after"]) == (4, 10, "search")
        time.sleep(0.6)
        assert said[-1] == (PROGRESS, {"after": "judgment"}), "after the step, it says which step the run is in"
    finally:
        progress._current.reset(token)
        ticker.stop()
    count = len(said)
    time.sleep(0.4)
    assert len(said) == count, "a stopped ticker says nothing more"


def test_a_step_outside_a_run_reports_to_nobody():
    with progress.step("Preparing", total=3) as advance:
        advance(3)


def test_progress_in_words():
    assert (
        progress_words(
            {"what": "Preparing the sentences of “CiteSee” for reading", "done": 120, "total": 1412, "after": "search"}
        )
        == "Preparing the sentences of “CiteSee” for reading: 120 of 1,412…"
    )
    assert progress_words({"after": "judgment"}) == "The fast reader is reading… (still working)"
    assert progress_words({"after": "novel"}) == "Working… (still working)"


@pytest.mark.django_db(transaction=True)
def test_a_slow_first_read_is_reported_and_the_timeline_keeps_only_steps(library, settings, monkeypatch):
    settings.EVIDENCE_PROGRESS_QUIET_S = 0.2
    Region.objects.filter(document__collection=library).update(embedding=None)  # a first read: no vectors yet
    fill = units.fill_region_vectors

    def slow_fill(rows, documents):
        time.sleep(0.15)
        return fill(rows, documents)

    monkeypatch.setattr(units, "fill_region_vectors", slow_fill)
    monkeypatch.setattr(units, "EMBED_BATCH", 2)
    run = Run.objects.create(
        owner=library.owner,
        collection=library,
        system="dual",
        question="How much does caffeine reduce total sleep time?",
    )
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    events = list(RunEvent.objects.filter(run=run).order_by("seq"))
    ticks = [e.payload for e in events if e.kind == PROGRESS]
    preparing = [p for p in ticks if str(p.get("what", "")).startswith("Preparing the sentences of “")]
    assert preparing and all(0 <= p["done"] <= p["total"] for p in preparing)
    assert events[-1].kind == "finished", "no progress after the end"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert all(entry.kind != PROGRESS for entry in entries(run, events))
