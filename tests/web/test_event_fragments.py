"""Every event kind the loop writes renders as a timeline fragment (block details included, text escaped)."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from evidence import streams
from evidence.views import timeline

pytestmark = pytest.mark.django_db

PAYLOADS = {
    "judgment": {
        "docid": "d1",
        "title": "T",
        "goal": "g",
        "probability": 0.7,
        "block": {"start": 3, "end": 9, "quote": "<b>x</b>"},
    },
    "judgment_without_block": {"docid": "d1", "title": "T", "goal": "g", "probability": 0.1, "block": None},
    "judge_batches": {"batches": 3, "by_workers": 2},
    "fallback": {"reason": "nothing passed", "read": 5},
    "steer": {"message": "submit now", "elapsed_s": 2.1},
    "citations_dropped": {"count": 2},
    "lead": {"docid": "d2", "priority": 0.5, "clues": ["a"]},
    "paper_reading": {"papers": 1, "paragraphs": 40, "picked": 2},
    "paragraph_pair": {"docids": ["d1", "d2"], "sentences": 3},
    "mining": {"leads": 2, "mined": "worker"},
}


READABLE = {
    "mining": "found 2 leads",
    "paper_reading": "read 40 paragraphs of 1 paper by section and kept 2 paragraphs as evidence",
    "paragraph_pair": "Supporting paragraphs: d1 + d2",
}


@pytest.mark.parametrize("kind", sorted(PAYLOADS))
def test_it_renders_each_event_kind(run, kind):
    event = streams.emit(run.pk, kind.removesuffix("_without_block"), PAYLOADS[kind])
    entry = timeline.entries(run, [event])[0]
    html = render_to_string("evidence/_event.html", {"e": entry, "entry": entry, "run": run})
    assert "<b>x</b>" not in html
    if kind == "judgment":
        assert "&lt;b&gt;x&lt;/b&gt;" in html and "characters 3–9" in html
    if kind in READABLE:
        assert READABLE[kind] in " ".join(html.split()) and "<dl" not in html
