"""The ranker's inputs: one row per (evidence sentence, candidate), from the question, the sentence and its parse.

Every feature is computed the same way for every reader and benchmark: from the sentence's text and parse, the
question's wording, and the reader's rank, score gap and probability for the sentence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..judge.sentences import split_scope
from ..text.question import KINDS, Question, unit_fits
from ..text.terms import terms
from .candidates import TYPES, Candidate

ENTITY_GROUPS = {
    "PERSON": "person", "ORG": "org", "GPE": "place", "LOC": "place", "FAC": "place", "PRODUCT": "product",
    "WORK_OF_ART": "product", "LAW": "product", "EVENT": "product", "LANGUAGE": "norp", "NORP": "norp",
    "CARDINAL": "quant", "QUANTITY": "quant", "PERCENT": "quant", "MONEY": "quant", "ORDINAL": "quant",
    "DATE": "date", "TIME": "date",
}  # fmt: skip
ENTITIES = ("person", "org", "place", "product", "norp", "quant", "date")
PREVIOUS = {
    "using": "instrument", "use": "instrument", "with": "instrument", "by": "instrument", "via": "instrument",
    "through": "instrument", "of": "of", "in": "in", "into": "in", "on": "in", "at": "in", "from": "in",
    "is": "be", "was": "be", "are": "be", "were": "be", "be": "be", "been": "be", "as": "named", "called": "named",
    "named": "named", "termed": "named", "to": "to", "than": "than", "and": "and", "or": "and", ",": "and",
    "(": "paren", "about": "about", "approximately": "about", "around": "about", "nearly": "about",
    "over": "about", "only": "about",
}  # fmt: skip
PREVIOUS_GROUPS = ("instrument", "of", "in", "be", "named", "to", "than", "and", "paren", "about")
NEXT_GROUPS = ("paren", "comma", "stop", "of", "and", "verb", "noun", "prep")
DEPS = ("nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "compound", "conj", "npadvmod", "nummod", "amod")
POS = ("NOUN", "PROPN", "NUM", "ADJ", "VERB", "X")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Sentence:
    """One evidence sentence as the answer layer sees it: its text and what the reader said of it."""

    text: str
    rank: int  # the reader's order, 0 first
    score: float  # the reader's score (any scale: only the gap to the best is used)
    probability: float  # P(evidence) the reader gave it
    coverage: float | None = None  # the reader's share of the question's terms around it, when it measures one
    position: tuple[str, int] | None = None  # (paper, character offset) where it stands, when the reader knows


def feature_names() -> list[str]:
    """Return the names of the columns rows() writes, in order."""
    return [
        *(f"kind_{k}" for k in KINDS),
        *(f"type_{t}" for t in TYPES),
        *(f"ent_{e}" for e in ENTITIES),
        *(f"prev_{p}" for p in PREVIOUS_GROUPS),
        *(f"next_{n}" for n in NEXT_GROUPS),
        *(f"dep_{d}" for d in DEPS),
        *(f"pos_{p}" for p in POS),
        "words", "chars", "has_digit", "caps_share", "mixed_case", "all_caps",
        "echo", "echo_focus", "has_asked", "asked_after", "asked_before", "unit_fits", "unit_asked",
        "proximity", "clause_overlap", "nearest_term", "position", "in_parens", "starts_sentence",
        "rank", "score_gap", "probability", "sentence_coverage", "sentence_words",
        "redundancy", "same_type", "numeric_in_sentence", "candidates_in_sentence",
        "asked_linked", "asked_modifier", "context_count", "context_sentences",
        "tree_distance", "tree_proximity", "type_cosine", "type_cosine_gap",
    ]  # fmt: skip


def rows(
    question: Question,
    sentences: Sequence[Sentence],
    docs: Sequence[Any],
    found: Sequence[Sequence[Candidate]],
    context: str | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> np.ndarray:
    """Return the feature matrix: one row per candidate of each sentence, sentences in order, candidates in order.

    `context`: the whole text the reader read (a paper, or the documents of the search), where a candidate that is
    the paper's topic occurs everywhere and a detail once or twice; by default the sentences themselves.
    `embed` (texts -> unit vectors): how like the asked thing ("programming language") each candidate reads
    ("Python"); without it, or without an asked thing, that feature is 0.
    """
    context = " ".join(_WORD.findall((context if context is not None else " ".join(s.text for s in sentences)).lower()))
    context_sentences = max(1.0, context.count(" ") / 20.0)
    focus, _scope = split_scope(question.text)
    focus_terms = set(terms(focus)) or set(question.terms)
    top = max((s.score for s in sentences), default=0.0)
    normalized = [" ".join(_WORD.findall(s.text.lower())) for s in sentences]
    out: list[list[float]] = []
    for index, (sentence, doc, candidates) in enumerate(zip(sentences, docs, found, strict=True)):
        sentence_terms = set(terms(sentence.text))
        coverage = len(sentence_terms & focus_terms) / max(1, len(focus_terms))
        by_type: dict[str, int] = {}
        for c in candidates:
            by_type[c.type] = by_type.get(c.type, 0) + 1
        numeric = sum(by_type.get(t, 0) for t in ("percentage", "range", "quantity", "count", "number", "year"))
        tokens = list(doc) if doc is not None else []
        for c in candidates:
            count = _occurrences(c.text, context)
            out.append(
                [
                    *_row(question, focus_terms, sentence, tokens, c),
                    float(sentence.rank),
                    float(top - sentence.score),
                    float(sentence.probability),
                    coverage,
                    math.log1p(len(sentence.text.split())),
                    float(_redundancy(c, index, normalized)),
                    float(by_type[c.type] - 1),
                    float(numeric),
                    float(len(candidates)),
                    *_asked_relation(question, tokens, c),
                    *_tree_nearness(tokens, c, focus_terms),
                    math.log1p(count),
                    math.log1p(context_sentences),
                    0.0,  # type_cosine and its gap: filled below, for all candidates at once
                    0.0,
                ]
            )
    x = np.asarray(out, dtype=float).reshape(len(out), len(feature_names()))
    x[:, -2:] = _type_cosines(question, [c.text for cs in found for c in cs], embed)
    return x


def _row(question: Question, focus_terms: set[str], sentence: Sentence, tokens: list[Any], c: Candidate) -> list[float]:
    text = sentence.text
    cand_terms = set(terms(c.text))
    inside = [t for t in tokens if c.start <= t.idx < c.end]
    before = [t for t in tokens if t.idx + len(t.text) <= c.start and not t.is_space]
    after = [t for t in tokens if t.idx >= c.end and not t.is_space]
    root = _span_root(inside) if inside else None
    words = c.text.split()
    prev_group = PREVIOUS.get(before[-1].text.lower(), "") if before else ""
    nxt = after[0] if after else None
    next_group = _next_group(nxt)
    near_after = {t for tok in after[:2] for t in terms(tok.text)}
    near_before = {t for tok in before[-3:] for t in terms(tok.text)}
    unit_terms = set(terms(c.unit)) if c.unit else set()
    return [
        *(float(question.kind == k) for k in KINDS),
        *(float(c.type == t) for t in TYPES),
        *(float(ENTITY_GROUPS.get(c.entity, "") == e) for e in ENTITIES),
        *(float(prev_group == p) for p in PREVIOUS_GROUPS),
        *(float(next_group == n) for n in NEXT_GROUPS),
        *(float(root is not None and root.dep_ == d) for d in DEPS),
        *(float(root is not None and (root.pos_ == p or (p == "X" and root.pos_ not in POS))) for p in POS),
        float(len(words)),
        math.log1p(len(c.text)),
        float(bool(re.search(r"\d", c.text))),
        sum(bool(re.search(r"[A-Z]", w)) for w in words) / max(1, len(words)),
        float(bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z]\d|\d[A-Za-z]", c.text))),
        float(any(re.fullmatch(r"[A-Z]{2,}[\w\-]*", w) for w in words)),
        len(cand_terms & question.terms) / max(1, len(cand_terms)),
        len(cand_terms & focus_terms) / max(1, len(cand_terms)),
        float(bool(cand_terms & question.asked_terms)),
        float(bool(near_after & question.asked_terms)),
        float(bool(near_before & question.asked_terms)),
        float(unit_fits(question.text, c.unit)) if c.unit else 0.0,
        float(bool(unit_terms & question.terms)),
        _proximity(text, c.start, c.end, focus_terms),
        _clause_overlap(text, c.start, focus_terms),
        _nearest_term(tokens, c, focus_terms),
        c.start / max(1, len(text)),
        float(_inside(text, c.start, c.end, "(", ")")),
        float(not text[: c.start].strip()),
    ]


def _type_cosines(
    question: Question, texts: list[str], embed: Callable[[list[str]], np.ndarray] | None
) -> np.ndarray:
    """Per candidate: its cosine to the asked phrase, and how far below the best candidate's it is."""
    out = np.zeros((len(texts), 2))
    if embed is None or not question.phrase or not texts:
        return out
    unique = list(dict.fromkeys(texts))
    vectors = embed([question.phrase, *unique])
    cosines = dict(zip(unique, vectors[1:] @ vectors[0], strict=True))
    out[:, 0] = [cosines[t] for t in texts]
    out[:, 1] = out[:, 0].max() - out[:, 0]
    return out


def _tree_nearness(tokens: list[Any], c: Candidate, question_terms: set[str]) -> list[float]:
    """How near the question's words sit to the candidate in the sentence's parse: the fewest dependency arcs from
    the candidate to one of them, and the sum of 1 / (1 + arcs) over all of them (robust to word order)."""
    inside = [t for t in tokens if c.start <= t.idx < c.end]
    if not inside:
        return [10.0, 0.0]
    root = _span_root(inside)
    ids = {t.i for t in inside}
    chain = [root, *root.ancestors]
    depth = {t.i: d for d, t in enumerate(chain)}
    distances = []
    for token in tokens:
        if token.i in ids or not set(terms(token.text)) & question_terms:
            continue
        for up, ancestor in enumerate([token, *token.ancestors]):
            if ancestor.i in depth:
                distances.append(up + depth[ancestor.i])
                break
    if not distances:
        return [10.0, 0.0]
    return [float(min(min(distances), 10)), float(sum(1.0 / (1 + d) for d in distances))]


def _occurrences(text: str, context: str) -> int:
    """How often a candidate's words occur in the context (normalized, whole words)."""
    key = " ".join(_WORD.findall(text.lower()))
    if not key:
        return 0
    return len(re.findall(rf"(?<!\w){re.escape(key)}(?!\w)", context))


def _asked_relation(question: Question, tokens: list[Any], c: Candidate) -> list[float]:
    """Whether the candidate names the asked thing ("Chichewa, the local language"; "the parser Minipar"), and whether
    it only modifies it ("Malawian" in "the Malawian language")."""
    if not question.asked_terms or not tokens:
        return [0.0, 0.0]
    inside = [t for t in tokens if c.start <= t.idx < c.end]
    if not inside:
        return [0.0, 0.0]
    ids = {t.i for t in inside}
    asked = [t for t in tokens if t.i not in ids and set(terms(t.text)) & question.asked_terms]
    root = _span_root(inside)
    linked = modifier = False
    for a in asked:
        if root.head.i == a.i and root.dep_ in {"amod", "nmod", "poss"}:
            modifier = True
        elif root.head.i == a.i or a.head.i == root.i:
            linked = True  # "the parser Minipar", "Chichewa, the local language" (an apposition either way)
        elif a.head.i == root.head.i and (a.dep_ in {"appos", "nsubj", "nsubjpass"} or root.dep_ == "attr"):
            linked = True  # "the language was Chichewa": the asked thing and the candidate share a verb
    return [float(linked), float(modifier)]


def _span_root(inside: list[Any]) -> Any:
    """Return the token of a span whose head lies outside it (the span's syntactic root)."""
    ids = {t.i for t in inside}
    for token in inside:
        if token.head.i not in ids or token.head.i == token.i:
            return token
    return inside[-1]


def _next_group(token: Any) -> str:
    if token is None:
        return "stop"
    text = token.text
    if text in {"(", "["}:
        return "paren"
    if text in {",", ";", ":"}:
        return "comma"
    if text in {".", "?", "!"}:
        return "stop"
    if text.lower() == "of":
        return "of"
    if text.lower() in {"and", "or"}:
        return "and"
    if token.pos_ in {"VERB", "AUX"}:
        return "verb"
    if token.pos_ in {"NOUN", "PROPN"}:
        return "noun"
    if token.pos_ == "ADP":
        return "prep"
    return ""


def _redundancy(c: Candidate, index: int, normalized: Sequence[str]) -> int:
    """Return in how many other evidence sentences the candidate's words occur."""
    key = " ".join(_WORD.findall(c.text.lower()))
    if not key:
        return 0
    pattern = re.compile(rf"(?<!\w){re.escape(key)}(?!\w)")
    return sum(1 for i, text in enumerate(normalized) if i != index and pattern.search(text))


def _inside(text: str, start: int, end: int, opening: str, closing: str) -> bool:
    lo = text.rfind(opening, 0, start)
    return lo >= 0 and text.rfind(closing, lo, start) < 0 and text.find(closing, end) >= 0


def _proximity(sentence: str, start: int, end: int, question_terms: set[str], window: int = 60) -> float:
    """Return how many question terms sit near a character range, nearer ones weighing more."""
    score = 0.0
    for match in re.finditer(r"[^\s,;:()\[\]“”\"]+", sentence):
        if match.end() <= start - window or match.start() >= end + window or start <= match.start() < end:
            continue
        if any(t in question_terms for t in terms(match.group())):
            distance = start - match.end() if match.end() <= start else match.start() - end
            score += 1.0 / (1.0 + max(distance, 0) / 15.0)
    return score


def _clause_overlap(sentence: str, at: int, question_terms: set[str]) -> float:
    """Return how many distinct question terms the clause around a position holds (clauses end at , ; :)."""
    lo = max(sentence.rfind(mark, 0, at) for mark in ",;:(") + 1
    ends = [i for i in (sentence.find(mark, at) for mark in ",;:)") if i >= 0]
    clause = sentence[lo : min(ends) if ends else len(sentence)]
    return float(len(set(terms(clause)) & question_terms))


def _nearest_term(tokens: list[Any], c: Candidate, question_terms: set[str]) -> float:
    """Return the distance in tokens from the candidate to the nearest question term (capped at 30)."""
    inside = [t.i for t in tokens if c.start <= t.idx < c.end]
    if not inside:
        return 30.0
    first, last = inside[0], inside[-1]
    gaps = [
        first - t.i - 1 if t.i < first else t.i - last - 1
        for t in tokens
        if not first <= t.i <= last and set(terms(t.text)) & question_terms
    ]
    return float(min([30, *gaps]))
