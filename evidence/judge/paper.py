"""Evidence paragraphs inside one paper: a section-aware scorer with no fitted parameters.

For a question about one research paper, the evidence paragraph is rarely the one most similar to
the question as a whole: "what dataset is used?" is answered in the data section by a paragraph that
names a corpus. Each paragraph of the paper is scored by the sum of four z-scores over the paper

    z(BM25 of the expanded question against the paragraph)
  + z(BM25 of the expanded question against the paragraph's whole section, heading included)
  + z(MiniLM cosine of the question and the section heading)
  + 1 when the section's name falls in a group the question's type points to (data, results, ...)

and the best paragraph is taken, plus the runner-up when its z-score is within GAP of the best.

Nothing here is fitted. The constants (expansion weight 0.5, GAP 0.5, Lucene k1 0.9 / b 0.4) are round
numbers set by hand. The question types and their words were written after reading a development
sample of questions about papers, so its development figure (evidence F1 0.41) is in-sample for the
design; sealed questions show whether it transfers. Leave-one-paper-out selection among the variants
tried read 0.365.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..text.terms import terms
from .features import SECTIONS, section_flags, weighted_bm25, zscore

EXPANSION_WEIGHT = 0.5
GAP = 0.5
CONFIDENCE_HEAD = "paper_reader"  # P(evidence | z-score in the paper), fitted offline by bench/fitting/paper_fit.py
# Question words that say nothing about where the evidence is ("what kind of model do they use?").
QUESTION_STOP = (
    "use",
    "used",
    "using",
    "kind",
    "type",
    "types",
    "paper",
    "propose",
    "proposed",
    "author",
    "authors",
    "work",
    "approach",
)


# A question type: words that trigger it, words its evidence tends to use, and the SECTIONS groups it sits in.
QuestionType = tuple[tuple[str, ...], str, tuple[str, ...]]
QUESTION_TYPES: dict[str, QuestionType] = {
    "data": (
        ("dataset", "data", "corpus", "corpora", "collect", "collected", "annotated", "source"),
        "dataset data corpus corpora collect collected crawled annotated annotation source sample samples size "
        "instances documents",
        ("sec_data",),
    ),
    "metric": (
        ("metric", "metrics", "measure", "evaluate", "evaluation", "evaluated"),
        "metric metrics measure evaluate evaluation accuracy precision recall f1 bleu rouge score perplexity "
        "correlation",
        ("sec_results",),
    ),
    "baseline": (
        ("baseline", "baselines", "state-of-the-art", "compare", "compared", "comparison", "previous", "prior"),
        "baseline baselines compare comparison previous state-of-the-art implement re-implement existing",
        ("sec_baseline",),
    ),
    "result": (
        (
            "result",
            "results",
            "performance",
            "perform",
            "improve",
            "achieve",
            "outperform",
            "effect",
            "effective",
            "effectiveness",
        ),
        "result results outperform outperforms improvement improve achieve achieves significant significantly "
        "better performance gain",
        ("sec_results", "sec_analysis"),
    ),
    "language": (
        ("language", "languages"),
        "language languages english chinese french german spanish arabic japanese russian italian dutch hindi "
        "multilingual",
        ("sec_data",),
    ),
    "model": (
        ("architecture", "model", "models", "method", "network"),
        "architecture model network layer layers encoder decoder lstm hidden attention embedding",
        ("sec_method",),
    ),
}
_HYPHENATED = re.compile(r"\b(\w+)-(\w+)\b")
_WORDS = re.compile(r"[\w\-]+")


def joined(text: str) -> str:
    """Append hyphen-joined compounds ("semi-character" -> "semicharacter") so both spellings match."""
    extra = " ".join(a + b for a, b in _HYPHENATED.findall(text))
    return f"{text} {extra}" if extra else text


def question_types(question: str) -> list[str]:
    """Return the QUESTION_TYPES whose trigger words occur in the question."""
    words = set(_WORDS.findall(question.lower()))
    return [name for name, (trig, _, _) in QUESTION_TYPES.items() if any(w in words or w + "s" in words for w in trig)]


def query_weights(question: str) -> dict[str, float]:
    """Return {term: weight}: the question's terms (boilerplate dropped) at 1 each, type expansions at 0.5."""
    stop = {t for w in QUESTION_STOP for t in terms(w)}
    out: dict[str, float] = {}
    for t in terms(joined(question)):
        if t not in stop:
            out[t] = out.get(t, 0.0) + 1.0
    for name in question_types(question):
        for t in terms(QUESTION_TYPES[name][1]):
            out.setdefault(t, EXPANSION_WEIGHT)
    return out


def section_ids(labels: Sequence[str]) -> np.ndarray:
    """Number the runs of consecutive paragraphs that share a section label."""
    out, sid, prev = [], -1, None
    for label in labels:
        if label != prev:
            sid, prev = sid + 1, label
        out.append(sid)
    return np.asarray(out, dtype=int)


def section_prior(question: str, labels: Sequence[str]) -> np.ndarray:
    """Return 1.0 for paragraphs whose section name is in a SECTIONS group the question's type points to."""
    wanted = {group for name in question_types(question) for group in QUESTION_TYPES[name][2]}
    groups = list(SECTIONS)
    return np.array(
        [float(any(flag and groups[i] in wanted for i, flag in enumerate(section_flags(label)))) for label in labels]
    )


def paragraph_scores(
    question: str, question_vec: np.ndarray, texts: Sequence[str], labels: Sequence[str], label_vecs: np.ndarray
) -> np.ndarray:
    """Return one score per paragraph of one paper (label_vecs: the unit vector of each paragraph's section name)."""
    if not len(texts):
        return np.zeros(0)
    weights = query_weights(question)
    sid = section_ids(labels)
    tokens = [list(terms(joined(t))) for t in texts]
    members = [np.flatnonzero(sid == k) for k in range(int(sid.max()) + 1)]
    section_tokens = [[*terms(labels[int(m[0])]), *(w for p in m for w in tokens[p])] for m in members]
    paragraph_bm25 = weighted_bm25(weights, tokens)
    section_bm25 = weighted_bm25(weights, section_tokens)[sid]
    heading_cos = np.asarray(label_vecs, dtype=float) @ np.asarray(question_vec, dtype=float)
    return zscore(paragraph_bm25) + zscore(section_bm25) + zscore(heading_cos) + section_prior(question, labels)


def pick_paragraphs(scores: np.ndarray, gap: float = GAP) -> list[int]:
    """Return the best paragraph's index, plus the runner-up when its z-score is within gap of the best."""
    if not len(scores):
        return []
    order = np.argsort(-scores, kind="stable")
    z = zscore(scores)
    if len(order) > 1 and z[order[0]] - z[order[1]] < gap:
        return [int(order[0]), int(order[1])]
    return [int(order[0])]
