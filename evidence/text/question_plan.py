"""The offline planner's language side: deterministic decomposition of a question into sub-questions and queries."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_SUB_QUESTIONS = 6

# Words that carry no search value in a question (beyond the analyzer's stopwords).
QUESTION_WORDS = {
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "does",
    "do",
    "did",
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "should",
    "would",
    "will",
    "has",
    "have",
    "had",
    "much",
    "many",
    "kind",
    "type",
    "types",
    "use",
    "used",
    "using",
    "paper",
    "papers",
    "authors",
    "author",
    "proposed",
    "propose",
    "approach",
    "method",
    "work",
    "study",
    "mentioned",
    "given",
    "based",
    "there",
    "any",
    "some",
    "other",
    "about",
    "also",
    "its",
    "their",
    "they",
    "this",
    "that",
    "these",
    "those",
    "from",
    "with",
    "into",
    "than",
    "the",
    "and",
    "for",
    "of",
    "in",
    "on",
    "to",
    "a",
    "an",
    "by",
    "or",
    "be",
    "it",
    "as",
    "at",
    "if",
    "not",
}
BOOLEAN_OPENERS = (
    "is",
    "are",
    "was",
    "were",
    "does",
    "do",
    "did",
    "can",
    "could",
    "has",
    "have",
    "had",
    "will",
    "would",
    "should",
    "may",
    "might",
)


@dataclass(frozen=True)
class Plan:
    question: str
    sub_questions: list[str]
    queries: list[str]
    clues: list[str]
    boolean: bool


def content_words(text: str) -> list[str]:
    """Return the question's words worth searching for, in order, without repeats."""
    seen: set[str] = set()
    words = []
    for word in re.findall(r"[\w][\w\-.']*[\w]|\w", text):
        lowered = word.lower().strip(".'")
        if lowered in QUESTION_WORDS or lowered in seen or (len(lowered) < 2 and not lowered.isdigit()):
            continue
        seen.add(lowered)
        words.append(word.strip(".'"))
    return words


def key_phrases(text: str) -> list[str]:
    """Return quoted strings, capitalised multi-word names, acronyms and numbers: the strongest clues."""
    phrases = re.findall(r"\"([^\"]{3,80})\"|“([^”]{3,80})”", text)
    found = [a or b for a, b in phrases]
    found += re.findall(r"\b(?:[A-Z][\w\-]+(?:\s+[A-Z][\w\-]+)+)\b", text)
    found += re.findall(r"\b[A-Z]{2,}[\w\-]*\b|\b[A-Za-z]+\d[\w\-]*\b|\b\d+(?:[.,]\d+)?%?", text)
    out: list[str] = []
    for phrase in found:
        if phrase.lower() not in QUESTION_WORDS and phrase not in out:
            out.append(phrase)
    return out


def split_sub_questions(question: str) -> list[str]:
    """Split a compound question at clause boundaries; the whole question always comes first."""
    question = " ".join(question.split())
    parts = re.split(
        r"\?\s+|;\s+|,?\s+and\s+(?=(?:what|which|who|how|when|where|why|is|are|does|do|did)\b)", question, flags=re.I
    )
    subs = [question]
    for part in parts:
        part = part.strip(" ?,.")
        if len(part.split()) >= 3 and part.rstrip("?") != question.rstrip("?") and part not in subs:
            subs.append(part + "?")
    return subs[:MAX_SUB_QUESTIONS]


# Words by which a follow-up points back at what its thread was about ("What about its recall?").
REFERS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|theirs|this|these|those|such|he|she|his|her)\b|^\s*(?:and|what about|how about)\b",
    re.I,
)
MAX_CARRIED_WORDS = 6


def in_context(question: str, earlier: Sequence[tuple[str, str]] = ()) -> str:
    """A follow-up read in the light of its thread (earlier (question, short answer) pairs, oldest first).

    When it points back, or says too little to search on its own, the last turn's words it lacks are added in
    brackets, its short answer's first (a pronoun most often means the thing the last answer named); any other
    question is returned as it is.
    """
    if not earlier:
        return question
    own = {w.lower() for w in content_words(question)}
    if not (REFERS_BACK.search(question) or len(own) <= 2):
        return question
    last_question, last_answer = earlier[-1]
    if last_answer.strip().lower().rstrip(".") in {"yes", "no"}:
        last_answer = ""  # a polar answer names nothing a pronoun could point back to
    carried: list[str] = []
    for word in content_words(last_answer) + content_words(last_question):
        if word.lower() not in own and word.lower() not in {w.lower() for w in carried}:
            carried.append(word)
    carried = carried[:MAX_CARRIED_WORDS]
    return f"{question.rstrip()} ({' '.join(carried)})" if carried else question


def make_plan(question: str, earlier: Sequence[tuple[str, str]] = ()) -> Plan:
    """Decompose a question: sub-questions for the judge, lexical queries for search, clues for mining.

    A follow-up (`earlier` turns of its thread) is planned as read in their light (see in_context).
    """
    asked, question = question, in_context(question, earlier)
    subs = split_sub_questions(asked)
    if question != asked:  # the question as read in its thread replaces the one asked (the brackets stay whole)
        subs = [question, *(sub for sub in subs if sub.strip() != asked.strip())][:MAX_SUB_QUESTIONS]
    words = content_words(question)
    phrases = key_phrases(question)
    queries = [" ".join(words) or question]
    for sub in subs[1:]:
        sub_words = " ".join(content_words(sub))
        if sub_words and sub_words not in queries:
            queries.append(sub_words)
    if phrases:
        phrase_query = " ".join(phrases)
        if phrase_query not in queries:
            queries.append(phrase_query)
    clues = (phrases + [w for w in words if w not in phrases])[:MAX_SUB_QUESTIONS]
    boolean = asked.strip().lower().startswith(BOOLEAN_OPENERS)
    return Plan(question=question, sub_questions=subs, queries=queries[:4], clues=clues, boolean=boolean)


def refine_query(question: str, evidence_texts: list[str], used: list[str], limit: int = 6) -> str | None:
    """Return a new query: the question's words plus frequent new words from the best evidence so far."""
    base = content_words(question)
    known = {w.lower() for w in base}
    counts: dict[str, int] = {}
    for text in evidence_texts:
        for word in content_words(text):
            lowered = word.lower()
            if lowered not in known and len(lowered) > 3 and not lowered.isdigit():
                counts[lowered] = counts.get(lowered, 0) + 1
    extra = [w for w, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]]
    if not extra:
        return None
    query = " ".join(base[:8] + extra)
    return None if query in used else query
