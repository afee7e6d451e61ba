"""The run page's steps in plain words: headlines, a live 'now' line, the filter, explained funnel stages."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from evidence import streams
from evidence.models import Run
from evidence.views import timeline
from evidence.views.timeline import headline, metrics, now_doing

pytestmark = pytest.mark.django_db


def test_it_says_what_a_search_did():
    top = [{"rank": i, "docid": f"d{i}"} for i in range(1, 6)]
    words = headline("search", {"query": "x", "total": 1000, "top": top}, "")
    assert words == "Searched “x” — 1,000 ranked, top 5 shown"
    assert headline("search", {"query": "x", "total": 0, "top": []}, "") == "Searched “x” — nothing matched"


def test_it_says_how_many_documents_held_evidence():
    payload = {
        "docids": [f"d{i}" for i in range(6)],
        "delivered": [
            {"docid": "d1", "start": 0, "end": 5},
            {"docid": "d1", "start": 9, "end": 12},
            {"docid": "d4", "start": 1, "end": 3},
        ],
    }
    assert headline("request_evidence", payload, "") == "Read 6 documents: evidence in 2"


def test_it_quotes_found_evidence_with_its_page():
    words = headline("evidence", {"quote": "The graph has 12M nodes.", "page": 3}, "T")
    assert words == "Found: “The graph has 12M nodes.” (p. 3)"
    long = headline("evidence", {"quote": "word " * 50, "page": None}, "Paper")
    assert long.startswith("Found: “word word") and "…”" in long and long.endswith("in “Paper”")


def test_it_falls_back_for_an_unknown_kind():
    assert headline("brand_new_kind", {"x": 1}, "") == "Brand new kind"


def test_it_names_no_internal_judge_words(run):
    for kind, payload in [
        ("judge_batches", {"batches": 3, "by_workers": 1}),
        ("judgment", {"docid": "d", "probability": 0.2}),
    ]:
        words = headline(kind, payload, "Doc")
        assert "judge_batches" not in words and "noul" not in words.lower() and "batchs" not in words


def test_it_says_the_fast_reader_is_reading_after_a_dual_search(run):
    run.system, run.status = "dual", Run.Status.RUNNING
    run.save()
    streams.emit(run.pk, "search", {"query": "caffeine", "total": 9, "top": [{"docid": "a"}]})
    assert now_doing(run) == "The fast reader is reading the top documents of “caffeine”…"
    streams.emit(run.pk, "reading", {"docids": ["a", "b", "c"]})
    assert now_doing(run) == "Reading 3 documents…"
    assert metrics(run)["now"] == "Reading 3 documents…"


def test_the_run_page_filters_folds_and_explains(logged_in_client, finished_run):
    html = logged_in_client.get(f"/runs/{finished_run.pk}/").content.decode()
    assert 'name="step-filter" value="search"' in html and 'name="step-filter" value="evidence"' in html
    assert 'data-group="search"' in html and 'data-group="evidence"' in html
    assert "<details" in html and 'data-fold="close"' in html
    assert "Read by the planner" in html and 'title="Documents the planner (System 2) opened' in html
    assert "Searched “caffeine sleep” — 1 ranked, top 1 shown" in html


def test_steps_use_no_engineer_words(run):
    """Numbers are labelled and no step speaks of System 1, result ids or bare probabilities."""
    payloads = {
        "search": {"query": "caffeine", "searcher": "hybrid", "search_id": "s1", "total": 3,
                   "top": [{"rank": 1, "docid": "a", "title": "A", "score": 2.0}]},
        "judgment": {"docid": "a", "title": "A", "probability": 0.54, "goal": "caffeine",
                     "block": {"start": 3, "end": 9, "quote": "blocks"}},
        "evidence": {"docid": "a", "start": 3, "end": 9, "quote": "blocks", "probability": 0.8},
        "fallback": {"read": 3, "reason": "nothing passed"},
    }  # fmt: skip
    for kind, payload in payloads.items():
        event = streams.emit(run.pk, kind, payload)
        entry = timeline.entries(run, [event])[0]
        html = render_to_string("evidence/_event.html", {"entry": entry, "run": run})
        text = entry.headline + " " + re.sub(r"<[^>]+>", " ", html)
        for engineer in ("System 1", "kept as", "s1", "(p ", "chars "):
            assert engineer not in text, (kind, engineer, text)
    assert "“A” relevant (54%)" in timeline.entries(run, [run.events.get(kind="judgment")])[0].headline
