"""Extractive answers: citations only to delivered spans, exact answers cut from the best sentence."""

from __future__ import annotations

from evidence.agent.answer import (
    NO_EVIDENCE,
    UNANSWERABLE,
    attach_citations,
    compose_extractive,
    exact_from_sentence,
)
from evidence.judge.localize import EvidenceSpan


def span(docid: str, start: int, quote: str, p: float) -> EvidenceSpan:
    return EvidenceSpan(docid, start, start + len(quote), quote, None, p, 1.0, "q")


def test_it_answers_unanswerable_without_evidence():
    answer = compose_extractive("What is X?", [], boolean=False)
    assert (answer.explanation, answer.exact_answer, answer.citations) == (NO_EVIDENCE, UNANSWERABLE, [])


def test_it_cites_the_best_non_overlapping_spans_in_order():
    spans = [
        span("a", 0, "Caffeine delays sleep.", 0.9),
        span("a", 5, "ine delays", 0.8),
        span("b", 0, "Tea too.", 0.6),
    ]
    answer = compose_extractive("Does caffeine delay sleep?", spans, boolean=False)
    assert answer.explanation == "Caffeine delays sleep. [a] Tea too. [b]"
    assert [(i, s.docid) for i, s in answer.citations] == [(0, "a"), (1, "b")]
    assert answer.confidence == 0.9


def test_it_ignores_spans_below_the_floor():
    answer = compose_extractive("q", [span("a", 0, "weak", 0.1)], boolean=False)
    assert answer.exact_answer == UNANSWERABLE


def test_it_answers_boolean_questions_yes_or_no():
    assert compose_extractive("Is it safe?", [span("a", 0, "It is safe.", 0.9)], boolean=True).exact_answer == "Yes"
    assert compose_extractive("Is it safe?", [span("a", 0, "It is not safe.", 0.9)], boolean=True).exact_answer == "No"


def test_it_keeps_citations_to_delivered_spans_and_counts_made_up_ids():
    delivered = [span("a", 0, "A.", 0.4), span("a", 10, "Better A.", 0.9), span("b", 0, "B.", 0.5)]
    citations, dropped = attach_citations("First claim [a]. Second [b, zzz]. Third [docid=qq].", delivered)
    assert [(i, s.docid, s.start) for i, s in citations] == [(0, "a", 10), (1, "b", 0)]
    assert dropped == 2


def test_it_cuts_sources_and_quantities_and_keeps_other_sentences_whole():
    assert exact_from_sentence("Where do they get the recipes from?", "We crawl recipes from Food.com. Then") == (
        "from Food.com"
    )
    assert (
        exact_from_sentence("How many cases are there?", "We collect 100 000 documents in all.") == "100 000 documents"
    )
    assert exact_from_sentence("What is a semicharacter RNN?", "It  reads   words.") == "It reads words."
