"""Exact answers by question type, cut only from a cited sentence.

The question's kind (count, quantity, percentage, year, yes/no, name, purpose, phrase) decides what is cut:
a number the question asks for (never a year, a section, figure or table number, a citation marker or a
number the question itself contains, unless a year is asked), a yes/no with negation, or the shortest run
of the sentence's words that the question does not already say, nearest the question's terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..judge.features import terms

KINDS = ("yes_no", "percentage", "count", "quantity", "year", "name", "purpose", "phrase")

_PERCENT_Q = re.compile(r"\bpercent(?:age)?s?\b|\bwhat (?:fraction|proportion|share)\b|%", re.I)
_QUANTITY_Q = re.compile(
    r"\bhow (?:much|long|large|big|high|fast|far|old|heavy)\b|\bhow many times\b|"
    r"\b(?:concentration|size|surface area|dose|dosage|temperature|amount|rate|length|width|weight|volume|"
    r"duration|speed|dimension|area|mass|budget|cost|price|value)\b",
    re.I,
)
_COUNT_Q = re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b", re.I)
_YEAR_Q = re.compile(r"\bwhat year\b|\bwhich year\b|\bwhen\b|\bin what year\b", re.I)
_PURPOSE_Q = re.compile(r"\bused for\b|\bfor what\b|\bwhat (?:\w+ )?for\??$|\bpurpose\b|\bwhy\b|\brole of\b", re.I)
_NAME_Q = re.compile(
    r"^\s*(?:which|who|whom|whose|name)\b|\bwhat (?:kinds?|types?|sorts?) of\b|"
    r"\bwhat (?:is|was|are|were) the name\b|\bwhich\b",
    re.I,
)
_BOOLEAN = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|may|might)\b", re.I)

_WORD_NUMBERS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred"
)
_NUMBER = re.compile(
    rf"(?<![\w.])(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)(?:\s*[×x]\s*\d+(?:\.\d+)?)?(?:\s?[KkMB]\b)?"
    rf"|\b(?:{_WORD_NUMBERS})(?:[\s\-](?:{_WORD_NUMBERS}))*\b",
    re.I,
)
_UNIT = re.compile(r"\s?(?:%|-fold\w*|°\s?C\b|[a-zA-Zµμ°²³]{1,5}(?:[/²³\d][\w/²³]*)?(?![\w\-]))")
_REFERENCE_BEFORE = re.compile(
    r"(?:section|sec\.|fig\.?|figure|table|eq\.?|equation|chapter|appendix|step|\[|ref\.?|page|p\.)\s*$", re.I
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|cannot|can't|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|"
    r"fail(?:s|ed)?\s+to|without|unable|negative|none|rather than|instead of|independent(?:ly)? of|"
    r"unaffected|unchanged|absent|lack(?:s|ed|ing)?)\b",
    re.I,
)
_TOKEN = re.compile(r"[^\s,;:()\[\]“”\"]+")
_STOP = {
    "the", "a", "an", "was", "were", "is", "are", "be", "been", "being", "by", "using", "use", "used", "to", "in",
    "on", "at", "with", "from", "as", "that", "this", "these", "those", "which", "who", "we", "our", "it", "its",
    "their", "they", "has", "have", "had", "into", "than", "then", "also", "such", "can", "may", "via", "per",
    "between", "since", "after", "before", "during", "while", "where", "when", "there", "here", "both", "each",
    "all", "any", "some", "more", "most", "other", "further", "i.e.", "e.g.", "et", "al.", "al", "or", "but",
}  # fmt: skip
_CONNECTORS = {"and", "of", "for", "de", "del", "el", "la", "para", "y", "&", "#"}


def question_kind(question: str) -> str:
    """Return what the question asks for: one of KINDS."""
    q = " ".join(question.split())
    if _BOOLEAN.match(q) and not re.match(r"^\s*(?:is|are|was|were) (?:the )?(?:name|number)\b", q, re.I):
        return "yes_no"
    if _PERCENT_Q.search(q):
        return "percentage"
    if _YEAR_Q.search(q) and not _COUNT_Q.search(q):
        return "year"
    if re.search(r"\bhow many times\b", q, re.I) or (_QUANTITY_Q.search(q) and not _COUNT_Q.search(q)):
        return "quantity"
    if _COUNT_Q.search(q):
        return "count"
    if _PURPOSE_Q.search(q):
        return "purpose"
    if _NAME_Q.search(q):
        return "name"
    return "phrase"


@dataclass(frozen=True)
class Candidate:
    text: str
    score: float


def negated(text: str) -> bool:
    """Return whether the text states a negative finding."""
    return bool(_NEGATION.search(text))


def _is_year(number: str) -> bool:
    return bool(re.fullmatch(r"(?:1[89]|20)\d\d", number.strip()))


def _proximity(sentence: str, start: int, end: int, question_terms: set[str], window: int = 60) -> float:
    """Return how many question terms sit near a character range, nearer ones weighing more."""
    score = 0.0
    for match in _TOKEN.finditer(sentence):
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


def number_candidates(question: str, sentence: str, kind: str) -> list[Candidate]:
    """Return the numbers of the sentence the question may ask for, best first (with a unit when it has one)."""
    question_terms = set(terms(question))
    asked = {m.group().lower() for m in _NUMBER.finditer(question)}
    out: list[Candidate] = []
    for match in _NUMBER.finditer(sentence):
        number = match.group()
        before = sentence[: match.start()]
        if number.lower() in asked or _REFERENCE_BEFORE.search(before[-12:]):
            continue
        if _is_year(number) and kind != "year":
            continue
        if kind == "year" and not _is_year(number):
            continue
        if re.match(r"\d+\s*[,\]]", sentence[match.start() :]) and "[" in before[-8:]:
            continue  # a citation list [38, 40]
        unit = _UNIT.match(sentence, match.end())
        unit_text = unit.group() if unit and unit.group().strip().lower() not in _STOP | _CONNECTORS else ""
        if kind == "count" and not unit_text.strip().startswith("-"):
            unit_text = ""
        text = (number + unit_text).strip()
        score = _clause_overlap(sentence, match.start(), question_terms) + 0.5 * _proximity(
            sentence, match.start(), match.end() + len(unit_text), question_terms
        )
        if kind == "percentage":
            if "%" not in unit_text and "percent" not in sentence[match.end() : match.end() + 9].lower():
                continue
            score += 2.0
        elif kind == "quantity":
            score += 1.0 if unit_text.strip() else 0.0
        elif kind == "count" and unit_text.strip().startswith("-"):
            score -= 1.0  # "60-minute" is a measure, not a count
        out.append(Candidate(text, score))
    return sorted(out, key=lambda c: -c.score)


def phrase_candidates(question: str, sentence: str, kind: str) -> list[Candidate]:
    """Return runs of the sentence's words the question does not say, scored as answers to it."""
    question_terms = set(terms(question))
    tokens = list(_TOKEN.finditer(sentence))
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and _free(tokens[j].group(), question_terms):
            j += 1
            if j < len(tokens) and re.search(r"[,;:()\[\]]", sentence[tokens[j - 1].end() : tokens[j].start()]):
                break  # a run never crosses punctuation
        while j > i and tokens[j - 1].group().lower() in _CONNECTORS:
            j -= 1
        if j > i and tokens[i].group().lower() not in _CONNECTORS:
            runs.append((i, j))
        i = max(j, i + 1)
    out = []
    limit = 10 if kind in {"purpose", "phrase"} else 6
    for i, j in runs:
        # Keep the question's head noun that follows the name ("Apache's PDFBox library", "Soil DNA kit").
        k = j
        while k < len(tokens) and k < j + 2 and not _free(tokens[k].group(), question_terms):
            if tokens[k].group().lower() in _STOP:
                break
            k += 1
        words = [t.group() for t in tokens[i:j]]
        if len(words) > limit:
            continue
        start, end = tokens[i].start(), tokens[max(k, j) - 1].end()
        text = sentence[start:end].strip(" .,;:")
        named = sum(bool(re.search(r"[A-Z]|\d|-", w[1:] if w[:1].isupper() and i == 0 else w)) for w in words)
        score = named + 2.0 * _proximity(sentence, start, end, question_terms) - 0.3 * max(0, len(words) - 4)
        if "(" in sentence[max(0, start - 1) : start] or re.search(r"\bet al\b", text):
            score -= 2.0
        if all(_is_year(w.strip(".,")) for w in words):
            score -= 3.0
        if text:
            out.append(Candidate(text, score))
    return sorted(out, key=lambda c: -c.score)


def _free(token: str, question_terms: set[str]) -> bool:
    """Return whether a token is neither a stopword nor one of the question's terms."""
    low = token.lower().strip(".")
    if low in _STOP:
        return False
    analysed = terms(token)
    return low in _CONNECTORS or not analysed or not any(t in question_terms for t in analysed)


def candidates(question: str, sentence: str, kind: str | None = None) -> list[Candidate]:
    """Return exact-answer candidates of the asked kind in one sentence, best first ([] when it has none)."""
    kind = kind or question_kind(question)
    flat = " ".join(sentence.split())
    if kind == "yes_no":
        return [Candidate("No" if negated(flat) else "Yes", 1.0)]
    if kind in {"percentage", "count", "quantity", "year"}:
        return number_candidates(question, flat, kind)
    return phrase_candidates(question, flat, kind)
