"""Questions that name their answer's options ("Who is older, Annie Morton or Terry Richardson?"): one of them.

The answer is the option the evidence favours: for "older", "earlier", "first" the one whose sentences give the
earliest year (the latest for "younger", "later"); otherwise the one whose sentences hold more of what the
question says about it ("Which writer was from England, ...": the one whose sentences say England).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.terms import terms
from .ranker_rows import Sentence

_OPTIONS = re.compile(r"[,:]\s*(?:(?:either|between)\s+)?([^,?:]+?)\s+or\s+([^,?:]+?)\s*\??\s*$", re.I)
_EARLIER = re.compile(r"\b(?:older|oldest|earlier|earliest|first|before|preceded)\b", re.I)
_LATER = re.compile(r"\b(?:younger|youngest|later|latest|newer|newest|more recent|most recent|after)\b", re.I)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


@dataclass(frozen=True)
class Option:
    text: str
    sentence: int | None  # the evidence sentence that names it, if any
    start: int
    end: int
    margin: float  # how clearly the evidence favours it over the other option (0: a tie)


def named_options(question: str) -> list[str]:
    """Return the two options a question names at its end ("..., X or Y?"), else []."""
    match = _OPTIONS.search(" ".join(question.split()))
    if not match:
        return []
    options = [re.sub(r"^(?:the|a|an)\s+", "", o.strip(" \"'“”"), flags=re.I) for o in match.groups()]
    return options if all(len(o) >= 2 and len(o.split()) <= 8 for o in options) else []


def choose_option(question: str, sentences: Sequence[Sentence]) -> Option | None:
    """Return the option the evidence favours, with where a sentence names it, or None when the question has none."""
    options = named_options(question)
    if not options:
        return None
    said = set(terms(question)) - {t for o in options for t in terms(o)}
    scored = []
    for option in options:
        mine = [i for i, s in enumerate(sentences) if _names(s.text, option)]
        years = [int(y) for i in mine for y in _YEAR.findall(sentences[i].text)[:1]]
        cover = max((len(set(terms(sentences[i].text)) & said) for i in mine), default=0)
        scored.append((option, mine, min(years) if years else None, cover))
    if _EARLIER.search(question) or _LATER.search(question):
        dated = [s for s in scored if s[2] is not None]
        if len(dated) == 2 and dated[0][2] != dated[1][2]:
            later = bool(_LATER.search(question)) and not _EARLIER.search(question)
            best = max(dated, key=lambda s: s[2]) if later else min(dated, key=lambda s: s[2])
            return _located(best[0], best[1], sentences, 1.0)
    best, other = sorted(scored, key=lambda s: -s[3])
    margin = float(best[3] - other[3])
    return _located(best[0], best[1], sentences, margin)


def _names(text: str, option: str) -> bool:
    words = set(terms(option))
    return bool(words) and len(words & set(terms(text))) / len(words) >= 0.6


def _located(option: str, mine: list[int], sentences: Sequence[Sentence], margin: float) -> Option:
    for i in mine:
        found = re.search(re.escape(option), sentences[i].text, re.I)
        if found:
            return Option(option, i, found.start(), found.end(), margin)
    return Option(option, mine[0] if mine else None, 0, 0, margin)
