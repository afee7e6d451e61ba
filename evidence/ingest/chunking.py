"""Retrieval passages: consecutive blocks packed up to a word budget, with exact offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import split_sentences
from .types import ParsedDocument

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
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
    words = len(text[start:end].split())
    if words <= max_words:
        return [(start, end, words)]
    units: list[tuple[int, int, int]] = []
    for s, e in split_sentences(text, start, end):
        count = len(text[s:e].split())
        if count <= max_words:
            units.append((s, e, count))
            continue
        spans = _word_spans(text, s, e)
        # A sentence longer than the budget (a table, a reference list) falls back to word windows.
        for i in range(0, len(spans), max_words):
            window = spans[i : i + max_words]
            units.append((window[0][0], window[-1][1], len(window)))
    return units


def _blocks(text: str) -> list[tuple[int, int]]:
    """Return the blank-line separated blocks of the text, trimmed of whitespace."""
    bounds = [0, *(i for m in _BLANK_LINE.finditer(text) for i in m.span()), len(text)]
    blocks: list[tuple[int, int]] = []
    for start, end in zip(bounds[::2], bounds[1::2], strict=True):
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            blocks.append((start, end))
    return blocks


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
