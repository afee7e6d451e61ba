"""Every step's text from one place (evidence/views/step_words.py): counts with the right noun, no raw Python values."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from evidence import streams
from evidence.models import Run
from evidence.views import timeline
from evidence.views.step_words import count, detail, headline, plain

pytestmark = pytest.mark.django_db

# What the research loop logs (the ctx.log and emit calls of evidence/agent and the run lifecycle), one of each.
STEPS = [
    ("status", {"status": "running", "system": "dual", "question": "How many nodes?"}),
    ("plan", {"sub_questions": ["How many nodes?"], "queries": ["nodes graph", "literature graph nodes"],
              "clues": ["12M"]}),
    ("search", {"search_id": "s1", "query": "nodes graph", "reason": "Search for evidence.", "searcher": "hybrid",
                "total": 1, "top": [{"rank": 1, "docid": "N18-3011", "title": "Literature graph", "score": 2.5,
                                    "excerpt": "The graph has 12M nodes.", "matched": ["graph"]}]}),
    ("read_search_results", {"search_id": "s1", "reason": "more", "offset": 6, "limit": 10, "docids": ["a"]}),
    ("read_document", {"docid": "a", "title": "A", "reason": "read it", "lines": [1, 200, 950], "start": 0,
                       "end": 8000}),
    ("tool_error", {"tool": "search", "message": "the index is being rebuilt"}),
    ("judgment", {"docid": "a", "title": "A", "goal": "How many nodes?", "probability": 0.71, "block": None}),
    ("reading", {"docids": ["2302.07302v1"]}),
    ("reader", {"reader": "whole", "docids": ["2302.07302v1"]}),
    ("reader", {"message": "Reading the best sentences with the local model"}),
    ("request_evidence", {"docids": ["a"], "sub_questions": ["How many nodes?"],
                          "delivered": [{"docid": "a", "start": 0, "end": 5}]}),
    ("judge_batches", {"batches": 1, "by_workers": 1}),
    ("evidence", {"docid": "a", "start": 0, "end": 24, "page": None, "quote": "The graph has 12M nodes.",
                  "probability": 0.9, "goal": "How many nodes?"}),
    ("lead", {"docid": "a", "priority": 0.4, "clues": ["12M"]}),
    ("mining", {"leads": 1, "mined": "in place"}),
    ("mining", {"leads": 0, "mined": "dropped"}),
    ("paper_reading", {"papers": 1, "paragraphs": 1, "picked": 1}),
    ("paper_reading", {"papers": 1, "sentences": 412, "picked": 3, "reader": "whole"}),
    ("paragraph_pair", {"docids": ["p1", "p2"], "sentences": 1}),
    ("fallback", {"reason": "no evidence passed System 1's threshold", "read": 1}),
    ("steer", {"message": "Submit your answer now.", "elapsed_s": 41.23}),
    ("citations_dropped", {"count": 1}),
    ("review", {"round": 1, "supported": False, "confidence": None}),
    ("answer", {"explanation": "It has 12M nodes. [a]", "exact_answer": "12M", "confidence": None, "signals": {}}),
    ("finished", {"status": "round_cap", "error": "", "funnel": {"surfaced": 3}, "elapsed_s": 12.345}),
    ("a_step_from_a_new_reader", {"docids": ["a", "b"], "reader": None, "scores": {"a": [0.5, True]}}),
]  # fmt: skip
RAW = ("['", '["', "{", "}", "None", "True", "False", "_s ", "docids")


def shown_text(run, kind: str, payload: dict) -> str:
    """The headline and the body of a step as the run page renders it, tags removed."""
    entry = timeline.entries(run, [streams.emit(run.pk, kind, payload)])[0]
    html = render_to_string("evidence/_event.html", {"entry": entry, "run": run})
    return entry.headline + " " + " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.parametrize(("kind", "payload"), STEPS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(STEPS)])
def test_no_step_shows_a_raw_python_value(run, kind, payload):
    text = shown_text(run, kind, payload)
    assert not [raw for raw in RAW if raw in text], text
    wrong_plural = r"\b(?:searchs|batchs)\b|(?<![#\w])1 (?:papers|documents|sentences|paragraphs|leads|citations)\b"
    assert not re.search(wrong_plural, text), text


def test_the_plan_counts_its_queries_and_says_how_many_were_searched():
    plan = {"sub_questions": ["a"], "queries": ["x", "y"]}
    assert headline("plan", plan, "") == "Planned 1 sub-question and 2 search queries"
    assert headline("plan", plan, "", searched=1) == "Planned 1 sub-question and 2 search queries, 1 of them searched"
    assert headline("plan", plan, "", searched=2) == "Planned 1 sub-question and 2 search queries"
    one = {"sub_questions": ["a", "b"], "queries": ["x"]}
    assert headline("plan", one, "", searched=0) == "Planned 2 sub-questions and 1 search query, none of them searched"


def test_a_finished_run_says_how_many_planned_searches_ran(run):
    plan = streams.emit(run.pk, "plan", {"sub_questions": ["q"], "queries": ["nodes graph", "graph nodes 12M"]})
    search = streams.emit(run.pk, "search", {"query": "nodes graph", "total": 3, "top": [{"docid": "a"}]})
    run.status = Run.Status.RUNNING
    assert timeline.entries(run, [plan, search])[0].headline == "Planned 1 sub-question and 2 search queries"
    run.status = Run.Status.ANSWERED
    entry = timeline.entries(run, [plan, search])[0]
    assert entry.headline == "Planned 1 sub-question and 2 search queries, 1 of them searched"


def test_the_reader_step_is_a_sentence(run):
    assert headline("reader", {"reader": "whole", "docids": ["2302.07302v1"]}, "") == (
        "Chose to read 1 paper whole, sentence by sentence"
    )
    assert headline("reader", {"reader": "papers", "docids": ["a", "b", "a"]}, "") == (
        "Chose to read 2 papers paragraph by paragraph, by section"
    )
    assert (
        headline("reader", {"reader": "pairs", "docids": ["p1", "p2"]}, "")
        == "Chose to read 2 linked passages together"
    )
    assert headline("reader", {"reader": "new", "docids": ["a"]}, "") == "Chose a reader for 1 document"
    assert headline("reader", {"message": "Loading the reader…"}, "") == "Loading the reader…"
    text = shown_text(run, "reader", {"reader": "whole", "docids": ["2302.07302v1"]})
    assert "2302.07302v1" in text and "reader whole" not in text and "Reader " not in text


def test_paper_reading_counts_what_the_reader_logged():
    whole = {"papers": 1, "sentences": 412, "picked": 3, "reader": "whole"}
    assert headline("paper_reading", whole, "") == "Read 1 paper whole, sentence by sentence"
    assert detail("paper_reading", whole) == (
        "The fast reader read 412 sentences of 1 paper and kept the best 3 sentences as evidence."
    )
    by_section = {"papers": 2, "paragraphs": 1, "picked": 1}
    assert headline("paper_reading", by_section, "") == "Read 2 papers section by section"
    assert detail("paper_reading", by_section) == (
        "The fast reader read 1 paragraph of 2 papers by section and kept 1 paragraph as evidence."
    )


@pytest.mark.parametrize(("kind", "payload", "words"), [
    ("judge_batches", {"batches": 1, "by_workers": 2}, "The fast reader read in 1 batch across 2 workers"),
    ("judge_batches", {"batches": 3, "by_workers": 1}, "The fast reader read in 3 batches across 1 worker"),
    ("mining", {"leads": 1, "mined": "worker"}, "Evidence mining found 1 lead"),
    ("citations_dropped", {"count": 2}, "Dropped 2 citations naming documents with no evidence"),
    ("fallback", {"read": 1}, "No passage passed the fast reader: reading the top 1 document directly"),
    ("request_evidence", {"docids": ["a"], "delivered": []}, "Read 1 document: evidence in 0"),
    ("finished", {"status": "deadline", "elapsed_s": 3.04}, "Finished after 3.0 s — stopped: time limit"),
    ("status", {"status": "cancelled"}, "Run cancelled"),
])  # fmt: skip
def test_counts_take_the_right_noun(kind, payload, words):
    assert headline(kind, payload, "") == words


def test_plain_words_for_any_value():
    assert [count(1, "search"), count(2, "search"), count(2, "batch"), count(1_200, "sentence")] == [
        "1 search", "2 searches", "2 batches", "1,200 sentences"
    ]  # fmt: skip
    assert plain(["a", "b"]) == "a, b" and plain(None) == "–" and plain(True) == "yes" and plain(0.5) == "0.50"
    assert plain({"docids": ["a"], "k": {"x": None}}) == "documents a; k x –"
