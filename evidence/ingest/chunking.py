"""Retrieval passages: consecutive blocks packed up to a word budget, with exact offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sentences import split_sentences
from .types import ParsedDocument

_BLOCK = re.compile(r"\S(?:.*?\S)?(?=\s*\n[ \t]*\n|\s*$)", re.S)
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class PassageSpan:
    """A retrieval unit: ``doc.text[start:end]`` (the title is added only at index time)."""

    ordinal: int
    start: int
    end: int


def _word_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Return the offsets of every whitespace-separated word in text[start:end]."""
    return [m.span() for m in _WORD.finditer(text, start, end)]


def _units(text: str, start: int, end: int, max_words: int) -> list[tuple[int, int, int]]:
    """Split a block into (start, end, words) units of at most max_words words each."""
    words = len(_word_spans(text, start, end))
    if words <= max_words:
        return [(start, end, words)]
    units: list[tuple[int, int, int]] = []
    for s, e in split_sentences(text, start, end):
        spans = _word_spans(text, s, e)
        if len(spans) <= max_words:
            units.append((s, e, len(spans)))
            continue
        # A sentence longer than the budget (a table, a reference list) falls back to word windows.
        for i in range(0, len(spans), max_words):
            window = spans[i : i + max_words]
            units.append((window[0][0], window[-1][1], len(window)))
    return units


def _blocks(text: str) -> list[tuple[int, int]]:
    """Return the blank-line separated blocks of the text, trimmed of whitespace."""
    return [m.span() for m in _BLOCK.finditer(text)]


def make_passages(doc: ParsedDocument, max_words: int = 250) -> list[PassageSpan]:
    """Pack consecutive paragraphs into passages of at most max_words words."""
    if max_words < 1:
        raise ValueError("max_words must be at least 1")
    text = doc.text
    units = [u for s, e in _blocks(text) for u in _units(text, s, e, max_words)]
    passages: list[PassageSpan] = []
    current: tuple[int, int, int] | None = None  # start, end, words
    for start, end, words in units:
        if current is not None and current[2] + words <= max_words:
            current = (current[0], end, current[2] + words)
            continue
        if current is not None:
            passages.append(PassageSpan(len(passages), current[0], current[1]))
        current = (start, end, words)
    if current is not None:
        passages.append(PassageSpan(len(passages), current[0], current[1]))
    return passages
