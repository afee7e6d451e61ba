"""What a question asks for: its kind (a count, a quantity, a name...), the thing it names, its terms and numbers.

Rules on the question's wording only; which candidate answers it is the ranker's job (ranker.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..text.terms import terms

KINDS = ("yes_no", "percentage", "count", "quantity", "year", "name", "purpose", "phrase")

_PERCENT_Q = re.compile(r"\bpercent(?:age)?s?\b|\bwhat (?:fraction|proportion|share)\b|%", re.I)
_QUANTITY_Q = re.compile(
    r"\bhow (?:much|long|large|big|high|fast|far|old|heavy)\b|\bhow many times\b|"
    r"\b(?:concentration|size|surface area|dose|dosage|temperature|amount|rate|length|width|weight|volume|"
    r"duration|speed|dimension|area|mass|budget|cost|price|value)\b",
    re.I,
)
_COUNT_Q = re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b", re.I)
_YEAR_Q = re.compile(r"\bwhat year\b|\bwhich year\b|^\s*when\b|\bin what year\b", re.I)
_PURPOSE_Q = re.compile(
    r"\bused for(?=\s+in\b|\s*\?|\s*$)|\bfor what\b|\bpurpose\b|\bwhy\b|\brole of\b|"
    # "What does maxstat need exactRankTests for?", not "What does the name stand for?"
    # "What is the rseed variable defined for in the vcd vignette?": "for" may be followed by where it is.
    r"^\s*what\b[^?]*\b(?:need|use|require|design|intend|meant|employ|appl|add|introduc|defin)\w*\b[^?]*\bfor"
    r"(?:\s*\??\s*$|\s+in\b)|"
    r"\bmotivation\b|\brationale\b|\bidea behind\b|\breason (?:for|why)\b|"
    # "What is SimpleCorpus meant to achieve?", "What is the aim of the second module?"
    r"^\s*what\b[^?]*\b(?:meant|intended|designed|supposed|aims?|seeks?)\s+to\s+(?:achieve|accomplish|do|serve)\b|"
    r"^\s*what (?:is|was|are|were) the (?:aim|goal|objective|point)s? of\b",
    re.I,
)
_WHY = re.compile(r"^\s*(?:why|for what (?:purpose|reason))\b", re.I)  # a reason, whatever nouns follow ("size")
_NAME_Q = re.compile(
    r"^\s*(?:which|who|whom|whose|name)\b|\bwhat (?:kinds?|types?|sorts?) of\b|"
    r"\bwhat (?:is|was|are|were) the name\b|\bwhich\b",
    re.I,
)
_BOOLEAN = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|may|might)\b", re.I)

NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_NUMBERS = "|".join((*NUMBER_WORDS[1:], *TENS_WORDS, "hundred"))
_NUMBER = re.compile(
    rf"(?<![\w.,])(?:\d{{1,3}}(?:,\d{{3}})+(?![\d,])|\d+,\d{{1,2}}(?![\d,])|\d+(?:\.\d+)?)(?:\s*[×x]\s*\d+(?:\.\d+)?)?(?:\s?[KkMB]\b)?"
    rf"|\b(?:{_WORD_NUMBERS})(?:[\s\-](?:{_WORD_NUMBERS}))*\b",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not(?!\s+only\b)|no|never|neither|nor|cannot|can't|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|"
    r"fail(?:s|ed)?\s+to|without|unable|negative|none|rather than|instead of|independent(?:ly)? of|"
    r"unaffected|unchanged|absent|lack(?:s|ed|ing)?|inappropriate|unsuitable|insensitive|ineffective|inefficient|"
    r"insufficient|inadequate|impossible|impractical|infeasible|incapable|unnecessary|unrelated|unsuccessful|"
    r"insignificant|non-?significant|neither)\b",
    re.I,
)


def question_kind(question: str) -> str:
    """Return what the question asks for: one of KINDS."""
    q = " ".join(question.split())
    # "In the model with X, is FDI welfare improving ...?", "Unlike a global F test, does ...?": the question proper
    # follows a leading phrase (one that is no question of its own: "What ..., is ..." is not a yes/no question).
    # "When gbm() computes the estimates, does it iterate ...?": a "when" clause leads too.
    # "With mle2, if the Hessian cannot be computed, does it ...?": the question proper may follow a second comma.
    if not re.match(r"^\s*(?:what|which|who|whom|whose|how|why)\b", q, re.I):
        q = next((q[m.end() :] for m in re.finditer(r",\s*", q[:200]) if _BOOLEAN.match(q[m.end() :])), q)
    if _BOOLEAN.match(q) and not re.match(r"^\s*(?:is|are|was|were) (?:the )?(?:name|number)\b", q, re.I):
        return "yes_no"
    if _WHY.match(q):
        return "purpose"
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
    if _NAME_Q.search(q) or asked_noun(q):
        return "name"
    return "phrase"


# The units each measure is written in: "at what concentration" is answered by "0.1 mg/mL", not "96 wells".
_MEASURE_UNITS = (
    (
        r"concentration|dose|dosage",
        r"(?:[nµμmk]?g|[nµμm]?mol|[nµμm]?M|ppm|ppb|%|IU|U)(?:\s?/\s?(?:[nµμm]?[lL]|kg|g|ml|mL|L))?$",
    ),
    (r"temperature", r"°\s?[CF]|K$|°$"),
    (
        r"duration|how long|time|age|how old",
        r"(?:s|sec|seconds?|min|minutes?|h|hours?|hrs?|days?|weeks?|months?|years?|yr)$",
    ),
    (
        r"length|width|height|depth|distance|how far|thickness|diameter|size|radius",
        r"(?:[nµμmck]?m|in|ft|µm|μm|px|pixels?)$",
    ),
    (r"surface area|area", r"(?:[nµμmck]?m2|[nµμmck]?m²|m\s?2\s?/\s?g|m²/g|ha|km2)$|/g$"),
    (r"weight|mass|how heavy", r"(?:[nµμmk]?g|kDa|Da|t|tons?)$"),
    (r"speed|velocity|how fast", r"(?:[mk]m/h|m/s|km/s|mph|rpm)$"),
    (r"volume", r"(?:[nµμm]?[lL]|ml|mL|cm3|m3)$"),
    (r"frequency|sampling rate|rate", r"(?:[kMG]?Hz|/s|per second)$"),
)


def unit_fits(question: str, unit: str) -> bool:
    """Return whether a number's unit is one the measure the question asks for is written in."""
    unit = unit.strip()
    if not unit or re.search(r"\bhow many times\b|\bfold\b", question, re.I):
        return False  # "how many times higher": a ratio, whatever measure the question names
    return any(
        re.search(rf"(?<![\w\-])(?:{measure})(?![\w\-])", question, re.I) and re.search(units, unit)
        for measure, units in _MEASURE_UNITS
    )


def negated(text: str) -> bool:
    """Return whether the text states a negative finding."""
    return bool(_NEGATION.search(text))


_ASKED = re.compile(
    r"\b(?:which|what|whose)\s+(?:(?:kinds?|types?|sorts?|name)\s+of\s+(?:the\s+)?)?((?:[\w\-]+\s+){0,3}?[\w\-]+?)"
    r"(?:\s+(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should|of|in|for|from|on|at|by|to|"
    r"used|named|assumed|employed|applied|required)\b|\s*,)",
    re.I,
)
_NOT_NOUNS = {"is", "are", "was", "were", "does", "do", "did", "the", "a", "an", "it", "they", "this"}


def asked_noun(question: str) -> str:
    """Return the head noun of the thing a which/what question asks for ("which union model is ..." -> "model")."""
    phrase = asked_phrase(question)
    return phrase.split()[-1] if phrase else ""


def asks_for_several(question: str) -> bool:
    """Whether a which/what question asks for several things: its head noun is a plural ("which coverage levels",
    "what metrics"; not "which corpus", "what analysis")."""
    noun = asked_noun(question).lower()
    return len(noun) > 3 and noun.endswith("s") and not noun.endswith(("ss", "us", "is"))


_DESCRIPTION_Q = re.compile(
    r"^\s*(?:how (?:is|are|was|were|do|does|did|can|could|should|would)\b(?! (?:[\w\-]+ ){0,6}?(?:differ|compare)\b)|"
    r"what (?:is|are) (?:a|an)\b|"
    r"what (?:does|do|did) .{1,60} (?:denote|mean|represent|refer to|measure)\b|"
    r"what (?:is|are|was|were) (?:(?:their|the|its) )?(?:[\w\-]+ )?(?:explanations?|approach|method|methodology|"
    r"procedure|results?|findings?|intuition|definition)\b)",
    re.I,
)


def asks_for_description(question: str) -> bool:
    """Whether the question asks how something is done or what something is ("How was the dataset collected?",
    "What is a semicharacter architecture?", "What does the sensitivity denote?", "What were their results?"): its
    answer is a clause of a sentence, not a name or a value. "How many", "how large" and "how does A compare" are
    not: they ask for a value or a comparison."""
    return bool(_DESCRIPTION_Q.match(question)) and question_kind(question) not in ("yes_no", "purpose")


def asked_phrase(question: str) -> str:
    """Return the thing a which/what question asks for ("which programming language ..." -> "programming language")."""
    q = " ".join(question.split())
    named = re.search(
        r"\bname of (?:the |a |an )?((?:[\w\-]+\s+){0,3}?[\w\-]+?)\s+(?:that|which|who|grouping|used|"
        r"mentioned|of|in|for|is|was|\?)",
        q + " ?",
        re.I,
    )
    match = named or _ASKED.search(q)
    if not match:
        return ""
    words = match.group(1).split()
    head = words[-1]
    return "" if head.lower() in _NOT_NOUNS or head.lower() == "name" else " ".join(words)


@dataclass(frozen=True)
class Question:
    """A question, analysed once: what it asks for and the words it already says."""

    text: str
    kind: str
    asked: str  # the head noun of a which/what question ("method"), or ""
    phrase: str  # the whole asked phrase ("analysis method"), or ""
    terms: frozenset[str]
    asked_terms: frozenset[str]
    numbers: frozenset[str]  # numbers the question writes (never its answer)
    wants_year: bool


@cache
def analyse(question: str) -> Question:
    """Return the question's kind, asked noun, terms and numbers."""
    kind = question_kind(question)
    phrase = asked_phrase(question)
    asked = phrase.split()[-1] if phrase else ""
    return Question(
        text=question,
        kind=kind,
        asked=asked,
        phrase=phrase,
        terms=frozenset(terms(question)),
        asked_terms=frozenset(terms(asked)),
        numbers=frozenset(m.group().lower().replace(",", "") for m in _NUMBER.finditer(question)),
        wants_year=kind == "year",
    )


# A distinctive name in a question: an acronym or a mixed-case word ("MAVEN", "SciFact", "LiveJournal",
# "BiLSTM-CRF"), or letters with digits ("ACE2005", "GPT-2"). A plain capitalised word ("Caribbean") is not one: its
# spelling varies too much to say a text lacks it.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+\-./]*[A-Za-z0-9+]")
_DISTINCTIVE = re.compile(r"[A-Z].*[A-Z]|[a-z][A-Z]|[A-Za-z].*\d|\d.*[A-Za-z]")
_UNIT_OR_NUMBER = re.compile(r"^\d+(?:\.\d+)?(?:[a-z]{1,3}|%)?$")


def distinctive_names(question: str) -> list[str]:
    """The question's distinctive names (acronyms, mixed case, letters with digits), in order, each once."""
    names = [
        token
        for token in _TOKEN.findall(question)
        if len(token) >= 3 and _DISTINCTIVE.search(token) and not _UNIT_OR_NUMBER.match(token)
    ]
    return list(dict.fromkeys(names))


def _alnum(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


_PERSONS = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")  # "Crammer-Singer", "Kaplan-Meier": names of people


def missing_names(question: str, text: str) -> list[str]:
    """The question's distinctive names that the text never writes (case, spaces, hyphens and dots ignored): what
    it asks about is not in the text ("the MAVEN dataset" asked of a paper evaluated on ACE2005 only). A pair of
    people's names is written when each name is ("the method of Crammer and Singer" for "Crammer-Singer")."""
    folded = _alnum(text)

    def written(name: str) -> bool:
        if _alnum(name) in folded:
            return True
        parts = name.split("-")
        return bool(_PERSONS.fullmatch(name)) and all(re.search(rf"\b{p}\b", text, re.I) for p in parts)

    return [name for name in distinctive_names(question) if not written(name)]
