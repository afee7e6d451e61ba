"""The answer layer: the short answer to a question from the evidence sentences a reader found, and P(right).

Every reader and every system's offline answer comes through `short_answer`: the typed candidates of each
sentence (candidates.py) are ranked by a model fitted on cloze questions generated from real papers
(bench/answers/), and the best one's probability of being right comes from a calibration fitted out of fold on
real labelled questions. Below the calibration's threshold the answer is withheld: the page shows the evidence
without a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..text.question import KINDS, Question, analyse, negated
from .candidates import Candidate, candidates
from .nlp import parse
from .options import Option, choose_option
from .ranker_rows import Sentence, feature_names, rows
from .trees import load, sigmoid

RANKER, CONFIDENCE, FOUND = "answer_ranker", "answer_confidence", "answer_found"
SHOW_AT = 0.5  # P(right) below which the short answer is withheld, unless the calibration file sets its own
ABSTAIN_COVERAGE = 0.35  # see found()
NO_SHORT_ANSWER = "No short answer found"


@dataclass(frozen=True)
class ShortAnswer:
    """The short answer, where it was cut from, and the probability that it is right."""

    text: str
    sentence: int | None  # index of the evidence sentence it is cut from
    start: int  # its range inside that sentence
    end: int
    probability: float  # P(right), calibrated
    shown: bool  # False: withheld (below the threshold): the page shows the evidence without a guess
    kind: str
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    signals: dict[str, float] = field(default_factory=dict)
    reader: dict[str, Any] = field(default_factory=dict)  # which reader gave it, and how (evidence/reader)

    @property
    def display(self) -> str:
        """The text a reader sees as the short answer."""
        return self.text if self.shown else NO_SHORT_ANSWER


def confidence_row(kind: str, signals: dict[str, float]) -> dict[str, float]:
    """Return the calibration's inputs from the answer's signals."""
    top = min(max(signals["top"], 1e-4), 1 - 1e-4)
    return {
        **{f"kind_{k}": float(kind == k) for k in KINDS},
        "top_logit": float(np.log(top / (1 - top))),
        "margin": signals["margin"],
        "votes": float(np.log1p(signals["votes"])),
        "rank": signals["rank"],
        "score_gap": signals["score_gap"],
        "probability": signals["probability"],
        "coverage": signals["coverage"],
        "absent": signals["absent"],
        "candidates": float(np.log1p(signals["candidates"])),
        "type_match": signals.get("type_match", 1.0),
        "asked_linked": signals.get("asked_linked", 0.0),
        "echo": signals.get("echo", 0.0),
        "type_cosine": signals.get("type_cosine", 0.0),
        "unit_fits": signals.get("unit_fits", 0.0),
    }


FOUND_FEATURES = ("absent", "evidence", "evidence_coverage", "coverage", "top_logit")


def found_row(signals: dict[str, float]) -> dict[str, float]:
    """Return the inputs of P(the collection answers the question) from an answer's signals."""
    top = min(max(signals.get("top", 0.5), 1e-4), 1 - 1e-4)
    return {
        "absent": signals.get("absent", 0.0),
        "evidence": signals.get("evidence", signals.get("probability", 0.0)),
        "evidence_coverage": signals.get("evidence_coverage", signals.get("coverage", 0.0)),
        "coverage": signals.get("coverage", 0.0),
        "top_logit": float(np.log(top / (1 - top))),
    }


def found_in_collection(short: ShortAnswer, model: Any = None) -> bool:
    """Whether the collection answers the question at all: a fitted P(answerable) from the evidence's strength and
    the question's terms the papers never write, above its threshold (before it is fitted: a term of what is asked
    is absent from the papers while the answer's sentence covers little of the question)."""
    if not short.text:
        return False
    model = model or load(FOUND)
    if model is None:
        absent, coverage = short.signals.get("absent", 0.0), short.signals.get("coverage", 1.0)
        return not (absent > 0 and coverage < ABSTAIN_COVERAGE)
    row = found_row(short.signals)
    p = float(model.probability(np.asarray([[row[f] for f in model.features]], dtype=float))[0])
    return p >= float(model.meta.get("threshold", 0.5))


@dataclass(frozen=True)
class Ranked:
    """Every candidate of every sentence with the ranker's probability, best first."""

    question: Question
    items: list[tuple[float, int, Candidate]]  # (p, sentence index, candidate)
    x: np.ndarray  # the feature rows, in the order candidates were generated
    order: list[tuple[int, Candidate]]


def rank(
    question: Question,
    sentences: Sequence[Sentence],
    ranker: Any = None,
    context: str | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> Ranked:
    """Return the candidates of the sentences ranked by the fitted ranker (a plain score before it is fitted).

    `ranker`: any object with `probability(rows)` (the fitting scripts pass the model they are fitting).
    """
    docs = parse([s.text for s in sentences])
    found = [candidates(s.text, question, d) for s, d in zip(sentences, docs, strict=True)]
    x = rows(question, sentences, docs, found, context, embed)
    order = [(i, c) for i, cs in enumerate(found) for c in cs]
    model = ranker or load(RANKER)
    if model is None:
        p = sigmoid(_unfitted(x))
    elif ranker is not None:
        p = np.asarray(ranker.probability(x), dtype=float)
    else:
        p = model.probability(model.columns(x, feature_names()))
    items = sorted(((float(p[j]), i, c) for j, (i, c) in enumerate(order)), key=lambda t: (-t[0], t[1], t[2].start))
    return Ranked(question, items, x, order)


def _unfitted(x: np.ndarray) -> np.ndarray:
    """A plain score for use before the ranker is fitted: near the question's terms, in the best sentence."""
    names = {n: i for i, n in enumerate(feature_names())}
    return x[:, names["proximity"]] - 0.5 * x[:, names["rank"]] - 2.0 * x[:, names["echo"]] - 1.0


def short_answer(
    question_text: str,
    sentences: Sequence[Sentence],
    absent: float = 0.0,
    ranker: Any = None,
    confidence: Any = None,
    context: str | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
    threshold: float | None = None,
) -> ShortAnswer:
    """Return the short answer to a question from its evidence sentences (best first), with P(right).

    `context` is the whole text the reader read and `embed` the sentence embedder (see ranker_rows.rows); `threshold`
    replaces the calibration's own (a run's `answer_threshold`); `ranker` and `confidence` replace the fitted files
    (the fitting scripts pass the models they fit).
    """
    short = _short_answer(question_text, sentences, absent, ranker, confidence, context, embed)
    if threshold is None:
        return short
    return replace(short, shown=bool(short.text) and short.probability >= threshold)


def _short_answer(
    question_text: str,
    sentences: Sequence[Sentence],
    absent: float,
    ranker: Any,
    confidence: Any,
    context: str | None,
    embed: Callable[[list[str]], np.ndarray] | None,
) -> ShortAnswer:
    question = analyse(question_text)
    if not sentences:
        return ShortAnswer("", None, 0, 0, 0.0, False, question.kind)
    if question.kind == "yes_no":
        return _polar(question, sentences, absent, confidence)
    option = choose_option(question_text, sentences)
    if option is not None:
        return _option(question, sentences, option, absent, confidence)
    ranked = rank(question, sentences, ranker, context, embed)
    if not ranked.items:
        return ShortAnswer("", None, 0, 0, 0.0, False, question.kind)
    top_p, index, best = ranked.items[0]
    key = _key(best.text)
    votes = sum(p for p, _, c in ranked.items if _key(c.text) == key)
    runner_up = next((p for p, _, c in ranked.items[1:] if _key(c.text) != key and not _nested(c.text, best.text)), 0.0)
    row = dict(zip(feature_names(), ranked.x[ranked.order.index((index, best))], strict=True))
    signals = {
        "top": top_p,
        "margin": top_p - runner_up,
        "votes": votes,
        **_evidence_signals(question, sentences, index, absent),
        "candidates": float(len(ranked.items)),
        # what the chosen candidate is: a number for a numeric question, the named asked thing, an echo...
        "type_match": float(_type_match(question.kind, best.type)),
        "asked_linked": row["asked_linked"] + row["has_asked"] + row["asked_after"] + row["asked_before"],
        "echo": row["echo"],
        "type_cosine": row["type_cosine"],
        "unit_fits": row["unit_fits"] + row["unit_asked"],
    }
    alternatives = [
        {"text": c.text, "p": round(p, 4), "sentence": i} for p, i, c in ranked.items[1:12] if _key(c.text) != key
    ][:3]
    return _answer(question, best.text, index, best.start, best.end, signals, confidence, alternatives)


def _polar(question: Question, sentences: Sequence[Sentence], absent: float, confidence: Any) -> ShortAnswer:
    """Yes or no from the best sentence: "No" when it states the negative."""
    best = sentences[0]
    text = "No" if negated(best.text) else "Yes"
    signals = {
        "top": 0.5,
        "margin": 0.0,
        "votes": float(sum(("No" if negated(s.text) else "Yes") == text for s in sentences)),
        **_evidence_signals(question, sentences, 0, absent),
        "candidates": 2.0,
    }
    return _answer(question, text, 0, 0, 0, signals, confidence)


def _option(
    question: Question, sentences: Sequence[Sentence], option: Option, absent: float, confidence: Any
) -> ShortAnswer:
    """One of the options the question names ("..., X or Y?"), as the evidence favours it."""
    index = option.sentence if option.sentence is not None else 0
    signals = {
        "top": 0.5 + 0.1 * min(option.margin, 4.0),
        "margin": option.margin,
        "votes": 1.0,
        **_evidence_signals(question, sentences, index, absent),
        "candidates": 2.0,
    }
    return _answer(question, option.text, index, option.start, option.end, signals, confidence)


def _evidence_signals(question: Question, sentences: Sequence[Sentence], index: int, absent: float) -> dict[str, float]:
    """What the evidence says about an answer cut from sentence `index`: its rank, score gap, probability and
    coverage, the terms the papers lack, and the best evidence of all."""
    sentence = sentences[index]
    return {
        "rank": float(sentence.rank),
        "score_gap": float(max(s.score for s in sentences) - sentence.score),
        "probability": float(sentence.probability),
        "coverage": _coverage(question, sentence),
        "absent": float(absent),
        "evidence": max(float(s.probability) for s in sentences),
        "evidence_coverage": max(_coverage(question, s) for s in sentences),
    }


def _answer(
    question: Question,
    text: str,
    index: int,
    start: int,
    end: int,
    signals: dict[str, float],
    confidence: Any,
    alternatives: list[dict[str, Any]] | None = None,
) -> ShortAnswer:
    """The short answer with its calibrated P(right), shown when that reaches the threshold."""
    probability, threshold = _calibrated(question.kind, signals, confidence)
    rounded = {k: round(v, 4) for k, v in signals.items()}
    return ShortAnswer(
        text, index, start, end, probability, probability >= threshold, question.kind, alternatives or [], rounded
    )


NUMERIC_KINDS = {"percentage", "count", "quantity", "year"}


def _type_match(kind: str, typed: str) -> bool:
    """Whether a candidate's type is what the question's kind asks for."""
    if kind in NUMERIC_KINDS:
        return typed in {"percentage", "range", "quantity", "count", "number", "year"}
    if kind == "purpose":
        return typed == "purpose"
    return typed in {"name", "term", "phrase", "list"}


def _calibrated(kind: str, signals: dict[str, float], model: Any = None) -> tuple[float, float]:
    """Return (P(right), the threshold to show it) from the calibration, or the ranker's p before it is fitted."""
    model = model or load(CONFIDENCE)
    if model is None:
        return float(signals["top"]), SHOW_AT
    row = confidence_row(kind, signals)
    x = np.asarray([[row[f] for f in model.features]], dtype=float)
    return float(model.probability(x)[0]), float(model.meta.get("threshold", SHOW_AT))


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _nested(a: str, b: str) -> bool:
    """Whether one candidate's words hold the other's ("20" and "20 stakeholders" are one answer)."""
    ka, kb = f" {_key(a)} ", f" {_key(b)} "
    return ka in kb or kb in ka


def _coverage(question: Question, sentence: Sentence) -> float:
    """The reader's coverage of the question's terms around the sentence, else the share of them it holds."""
    from ..text.terms import terms

    if sentence.coverage is not None:
        return float(sentence.coverage)
    return len(set(terms(sentence.text)) & question.terms) / max(1, len(question.terms))
