"""Answers from delivered spans: whole sentences in reading order, citations only to delivered spans, the short
answer highlighted inside its sentence, and abstentions that say so."""

from __future__ import annotations

from evidence.agent.core.answering import (
    NO_EVIDENCE,
    NOT_FOUND,
    UNANSWERABLE,
    attach_citations,
    compose,
    compose_extractive,
)
from evidence.answers.layer import ShortAnswer
from evidence.judge.localize import EvidenceSpan
from evidence.run_state import StoredAnswer


def span(docid: str, start: int, quote: str, p: float) -> EvidenceSpan:
    return EvidenceSpan(docid, start, start + len(quote), quote, None, p, 1.0, "q")


def test_it_answers_unanswerable_without_evidence():
    answer = compose_extractive("What is X?", [])
    assert (answer.explanation, answer.exact_answer, answer.citations) == (NO_EVIDENCE, UNANSWERABLE, [])
    assert not answer.found


def test_it_cites_whole_sentences_in_reading_order_not_in_score_order():
    spans = [
        span("a", 40, "Caffeine delays sleep onset by 20 minutes.", 0.9),
        span("a", 0, "We studied 30 adults.", 0.6),
        span("b", 0, "Tea too.", 0.5),
        span("a", 5, "died", 0.55),  # overlaps a better span: not cited
    ]
    answer = compose_extractive("How many adults were studied?", spans)
    assert answer.explanation.startswith("We studied 30 adults. [a] Caffeine delays sleep onset by 20 minutes. [a]")
    assert [s.start for _, s in answer.citations][:2] == [0, 40]
    assert all(s.quote in answer.explanation for _, s in answer.citations)


def test_a_withheld_short_answer_leaves_system_1s_best_sentences_cited():
    spans = [
        span("a", i * 100, f"Sentence {w} says little of note.", p)
        for i, (w, p) in enumerate([("one", 0.9), ("two", 0.8), ("three", 0.7), ("four", 0.6), ("five", 0.5)])
    ]
    spans.append(span("a", 900, "We studied 30 adults.", 0.4))  # the only candidate: picked, but withheld
    withheld = compose_extractive("How many adults were studied?", spans, threshold=1.0)
    assert withheld.exact_answer != "30 adults" and withheld.found
    assert sorted(s.start for _, s in withheld.citations) == [0, 100, 200]
    shown = compose_extractive("How many adults were studied?", spans, threshold=0.0)
    assert 900 in [s.start for _, s in shown.citations]  # a shown answer is cited with its sentence


def test_it_ignores_spans_below_the_floor():
    answer = compose_extractive("q", [span("a", 0, "weak", 0.1)])
    assert answer.exact_answer == UNANSWERABLE


def test_it_answers_boolean_questions_yes_or_no():
    assert (
        compose_extractive("Is it safe?", [span("a", 0, "It is safe for adults.", 0.9)]).signals["candidate"] == "Yes"
    )
    unsafe = compose_extractive("Is it safe?", [span("a", 0, "It is not safe for adults.", 0.9)])
    assert unsafe.signals["candidate"] == "No"


def test_the_short_answer_is_highlighted_at_its_place_in_the_explanation():
    spans = [
        span("b", 100, "The review found a bleeding risk of 3.9% in trauma patients.", 0.9),
        span("a", 0, "Other.", 0.5),
    ]
    short = ShortAnswer("3.9%", 0, 36, 40, 0.8, True, "percentage")
    answer = compose(spans, short)
    lo, hi = answer.highlight
    assert answer.explanation[lo:hi] == "3.9%"
    assert answer.exact_answer == "3.9%" and answer.confidence == 0.8


def test_a_yes_no_verdict_is_highlighted_as_the_whole_sentence_it_rests_on():
    spans = [
        span("a", 0, "Other evidence.", 0.9),
        span("b", 100, "The simulation results cannot be assumed to be part of the package.", 0.5),
    ]
    answer = compose(spans, ShortAnswer("No", 1, 0, 0, 0.82, True, "yes_no"))
    lo, hi = answer.highlight
    assert answer.explanation[lo:hi] == spans[1].quote and answer.exact_answer == "No"
    withheld = compose(spans, ShortAnswer("Yes", 1, 0, 0, 0.2, False, "yes_no"))
    assert withheld.highlight is None  # a withheld verdict marks nothing


def test_a_withheld_short_answer_shows_the_evidence_without_a_guess():
    spans = [span("a", 0, "The review found a bleeding risk of 3.9% in trauma patients.", 0.9)]
    answer = compose(spans, ShortAnswer("3.9%", 0, 36, 40, 0.2, False, "percentage"))
    assert answer.exact_answer == "No short answer found" and answer.highlight is None
    assert "3.9%" in answer.explanation and answer.confidence == 0.2
    assert StoredAnswer.parse("answered", answer.as_dict()).outcome == "no_short_answer"


def test_not_found_says_so_and_still_quotes_the_closest_evidence():
    spans = [span("a", 0, "The review found a bleeding risk of 3.9% in trauma patients.", 0.9)]
    answer = compose(spans, ShortAnswer("3.9%", 0, 36, 40, 0.7, True, "percentage"), found=False)
    assert answer.exact_answer == NOT_FOUND and answer.confidence == 0.0 and not answer.found
    assert answer.explanation.startswith("Not found in this collection. The closest evidence:")
    assert StoredAnswer.parse("not_found", answer.as_dict()).outcome == "not_found"


def test_it_keeps_citations_to_delivered_spans_and_counts_made_up_ids():
    delivered = [span("a", 0, "A.", 0.4), span("a", 10, "Better A.", 0.9), span("b", 0, "B.", 0.5)]
    citations, dropped = attach_citations("First claim [a]. Second [b, zzz]. Third [docid=qq].", delivered)
    assert [(i, s.docid, s.start) for i, s in citations] == [(0, "a", 10), (1, "b", 0)]
    assert dropped == 2
