"""The stored answer, typed: every reader of run.answer goes through StoredAnswer (the recorder writes
Answer.as_dict)."""

from __future__ import annotations

import pytest

from evidence.agent.core import Answer
from evidence.answers.layer import NO_SHORT_ANSWER
from evidence.run_state import StoredAnswer


def test_it_reads_back_what_the_recorder_writes():
    written = Answer(
        "Caffeine delays sleep onset by 40 minutes [a].",
        "40 minutes",
        0.82,
        ranking=[{"docid": "a", "p": 0.9}, {"docid": "b", "p": 0.1}],
        signals={"candidate": "40 minutes", "p_right": 0.82, "reading": {"backend": "model"}},
        highlight=[31, 41],
    ).as_dict()
    stored = StoredAnswer.parse("answered", written)
    assert stored.outcome == "short_answer" and stored.shown and stored.short_answer == "40 minutes"
    assert stored.confidence == pytest.approx(0.82) and stored.highlight == (31, 41)
    assert stored.explanation[slice(*stored.highlight)] == "40 minutes"
    assert stored.ranked_docids() == [("a", 0.9), ("b", 0.1)]
    assert stored.reading == {"backend": "model"} and stored.p_right == pytest.approx(0.82)


@pytest.mark.parametrize(
    ("status", "answer", "outcome"),
    [
        ("answered", {"exact_answer": NO_SHORT_ANSWER, "signals": {"candidate": "1 hour"}}, "no_short_answer"),
        ("not_found", {"exact_answer": "Not found in this collection"}, "not_found"),
        ("answered", {"exact_answer": "x", "not_found": True}, "not_found"),
        ("running", {"exact_answer": "x"}, "none"),
        ("failed", None, "none"),
    ],
)
def test_a_withheld_missing_or_unfinished_answer_shows_no_short_answer(status, answer, outcome):
    stored = StoredAnswer.parse(status, answer)
    assert stored.outcome == outcome and stored.short_answer == "" and not stored.shown


def test_malformed_json_reads_as_empty_values_not_an_error():
    stored = StoredAnswer.parse(
        "answered",
        {"confidence": "high", "highlight": [1], "ranking": "a,b", "signals": [1], "dropped_citations": None},
    )
    assert stored.confidence is None and stored.highlight is None and stored.ranking == [] and stored.signals == {}
    assert stored.dropped_citations == 0 and stored.candidate == "" and stored.reading == {}
