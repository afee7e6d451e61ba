"""The clause that states a reason or a purpose ("because several packages use rtree() ...", "to avoid integration
for unchanged parameters"): what a "why" or "what for" question asks, as its sentence words it. Pure functions.

A small model often replies "not stated" to a "why" question whose answer its best sentence gives, or names a thing
instead of the reason; the clause is then cut from the sentence by its marker (because, since, in order to, so that,
as it..., the reason ... is that, a purpose verb after "to"), with exact offsets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.terms import terms

# Verbs that, after "to", say what something is for ("... during maximization to avoid integration ...").
PURPOSE_VERBS = (
    "accommodate|account|achieve|allow|avoid|capture|check|compute|detect|enable|ensure|establish|estimate|"
    "facilitate|guarantee|handle|help|identify|improve|increase|keep|limit|maintain|make|measure|minimi[sz]e|"
    "maximi[sz]e|obtain|prevent|protect|provide|quantify|reduce|remove|save|simplify|speed|support|test|verify"
)
_MARKER = re.compile(
    r"\b(?:in order to|so as to|so that|because(?: of)?|since(?! \d| then\b| the (?:early|late|\d))|due to|"
    r"as(?= (?:it|they|this|these|there|we|the researchers)\b)|"
    r"(?:argument|reason|idea|motivation|rationale|purpose|goal|aim)\b[^,;.]{0,80}?\b(?:is|was) (?:that|to)|"
    r"for (?:[\w\-]+ ){0,3}reasons?|"
    rf"to(?= (?:{PURPOSE_VERBS})\b))\b",
    re.I,
)
_CLAUSE_END = re.compile(
    r";|,\s+(?:which|while|whereas|but|however|although|though|since|because|as|i\.e\.|e\.g\.)\b|\.\s*$|$", re.I
)
_DROPPED = re.compile(
    r"^(?:as\s+|(?:argument|reason|idea|motivation|rationale|purpose|goal|aim)\b.*?\b(?:is|was) (?:that\s+|(?=to\b)))",
    re.I,
)
# The second "as" of a comparison ("as many equations as there are variables") gives no reason.
_COMPARISON = re.compile(r"\bas (?:many|much|few|little|well|long|far|\w+er)\b[^,;.]{0,60}$", re.I)
# A clause that only points back ("To achieve this", "because of that") states no reason of its own.
_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|it|them)$", re.I)
POINTING_WORDS = 3
MAX_WORDS = 25
MIN_SHARED = 2  # question terms the clause's sentence shares with the question


@dataclass(frozen=True)
class Clause:
    """The clause's range [start, end) inside evidence sentence `sentence`."""

    sentence: int
    start: int
    end: int


def reason_clause(text: str) -> tuple[int, int] | None:
    """The first reason or purpose clause of a sentence as [start, end), or None. A clause that opens the sentence
    ("In order to allow ..., networks are marked ...") ends at its first comma; one inside it at the sentence's end,
    a semicolon or a comma before a new clause ("which", "while", "but")."""
    match = next(
        (m for m in _MARKER.finditer(text) if m.group().lower() != "as" or not _COMPARISON.search(text[: m.start()])),
        None,
    )
    if match is None:
        return None
    start = match.start()
    opening = not text[:start].strip(" (").split() or text[:start].strip().lower() in {"in", "it is"}
    rest = text[match.end() :]
    end_at = rest.find(",") if opening and "," in rest else _CLAUSE_END.search(rest).start()  # type: ignore[union-attr]
    end = match.end() + end_at
    dropped = _DROPPED.match(text[start:end])
    if dropped:
        start += dropped.end()
    while end > start and text[end - 1] in " ,;:.":
        end -= 1
    words = text[start:end].split()
    if len(words) < 2 or len(words) > MAX_WORDS:
        return None
    if len(words) <= POINTING_WORDS and _POINTS_BACK.search(text[start:end]):
        return None
    return start, end


def clause_answer(question: str, texts: Sequence[str]) -> Clause | None:
    """The reason clause of the best sentence that states one and shares at least MIN_SHARED of the question's
    terms (the most shared first, then the better ranked), or None."""
    asked = set(terms(question))
    best: tuple[int, int, Clause] | None = None
    for i, text in enumerate(texts):
        span = reason_clause(text)
        if span is None:
            continue
        shared = len(asked & set(terms(text)))
        if shared >= MIN_SHARED and (best is None or shared > best[0]):
            best = (shared, -i, Clause(i, *span))
    return best[2] if best else None
