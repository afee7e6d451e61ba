"""Rule-based sentence splitting that returns exact character offsets."""

from __future__ import annotations

import itertools
import re

# Lower-cased tokens (without their final period) after which a period never ends a sentence.
# fmt: off
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "al", "cf", "vs", "viz", "fig", "figs", "eq", "eqs", "eqn", "eqns", "tab", "tabs",
    "sec", "secs", "sect", "ch", "chap", "ref", "refs", "dr", "mr", "mrs", "ms", "prof", "sr", "jr",
    "st", "mt", "no", "nos", "vol", "vols", "pp", "approx", "ca", "resp", "dept", "univ", "inc",
    "ltd", "co", "corp", "est", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "std", "qu", "min", "max",
})
# fmt: on

# A candidate boundary: terminal punctuation, optional closing quotes/brackets, then whitespace.
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def _is_abbreviation(text: str, dot: int) -> bool:
    """Tell whether the period at ``dot`` closes an abbreviation or an initial."""
    begin = dot
    while begin > 0 and not text[begin - 1].isspace():  # walk back: a regex search would rescan the prefix
        begin -= 1
    token = text[begin:dot].lstrip("(['\"“‘")
    if not token:
        return False
    if len(token) == 1 and token.isalpha() and token.isupper():
        return True  # an initial such as "J. Smith" or "Daniel S. Weld"
    if _DOTTED.fullmatch(token):
        return True  # "U.S", "e.g", "i.e"
    return token.lower() in ABBREVIATIONS


def _cut_points(text: str, start: int, end: int) -> list[int]:
    """Return the positions where a new sentence may begin inside text[start:end]."""
    cuts: list[int] = []
    for match in _BOUNDARY.finditer(text, start, end):
        stop = match.end()
        nxt = stop
        while nxt < end and text[nxt].isspace():
            nxt += 1
        if nxt >= end:
            continue
        if text[nxt].islower() or text[nxt] in ",;:":
            continue  # "approx. five", "et al. (2019)" still runs on
        if text[match.start()] == "." and match.end() - match.start() == 1 and _is_abbreviation(text, match.start()):
            continue
        cuts.append(stop)
    cuts.extend(m.start() for m in _PARAGRAPH_BREAK.finditer(text, start, end))
    return sorted(set(cuts))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Split text[start:end] into sentence spans indexing ``text``."""
    end = len(text) if end is None else min(end, len(text))
    start = max(0, start)
    spans: list[tuple[int, int]] = []
    bounds = [start, *_cut_points(text, start, end), end]
    for left, right in itertools.pairwise(bounds):
        s, e = _trim(text, left, right)
        if s < e:
            spans.append((s, e))
    return spans
