"""Map canonical-text offsets to pdfium text-page character indices, so a span can be drawn on its page.

The canonical text of a page is pdfium's characters in their order, rewritten: scripts become Unicode
(``2`` -> ``²``), math scripts gain ``^{...}``, line-end hyphens and page numbers go, whitespace collapses.
None of that reorders characters, so each canonical character is matched to the next pdfium character with
the same NFKC form, skipping a few unmatched pdfium characters (a dropped hyphen, a page number) and leaving
canonical characters pdfium never had (``^``, ``{``) unmapped. Nothing is guessed: a canonical character is
mapped only to a pdfium character that prints the same text, so every box drawn from this map is a glyph
of the quote.

The map is stored as runs ``[offset, index, length]``: canonical offset ``offset + k`` is pdfium character
``index + k`` for ``k < length``. One run per printed line, typically.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

Run = list[int]  # [canonical offset, pdfium char index, length]

LOOKAHEAD = 12  # pdfium characters skipped at most to find the next canonical one (page numbers, hyphens)
CONFIRM = 3  # characters of the same word that must follow a skip in order, so a skip is not a stray match
_DASH_MARKS = {"\ufffe": "-", "\x02": "-"}  # pdfium's soft-hyphen marks become "-" when the hyphen is kept


def _key(text: str) -> str:
    text = _DASH_MARKS.get(text, text)
    return unicodedata.normalize("NFKC", text)


def align(canonical: str, base: int, chars: Sequence[tuple[int, str]]) -> list[Run]:
    """Return the runs mapping ``canonical`` (starting at document offset ``base``) onto ``(index, text)`` chars.

    A glyph read as several letters (a ligature spelled out, "ff") maps each of its letters to its one index.
    """
    chars = [(index, letter) for index, text in chars for letter in (text if len(text) > 1 else (text,))]
    keys = [_key(text) for _, text in chars]
    indices = [index for index, _ in chars]
    spaces = [not key.strip() for key in keys]
    n = len(chars)
    mapping: list[int] = [-1] * len(canonical)

    def confirmed(i: int, q: int) -> bool:
        """Tell whether the rest of the word after canonical i follows pdfium character q (up to CONFIRM)."""
        checked, j, r = 0, i + 1, q + 1
        while checked < CONFIRM and j < len(canonical) and not canonical[j].isspace():
            if r >= n or keys[r] != _key(canonical[j]):
                return False
            checked, j, r = checked + 1, j + 1, r + 1
        return True

    p = 0
    for i, ch in enumerate(canonical):
        if ch.isspace():
            if p < n and spaces[p]:
                mapping[i] = indices[p]
                p += 1
            continue
        want = _key(ch)
        q, skipped = p, 0
        found = -1
        while q < n and skipped <= LOOKAHEAD:
            if spaces[q]:
                q += 1
                continue
            if keys[q] == want and (skipped == 0 or confirmed(i, q)):
                found = q
                break
            q, skipped = q + 1, skipped + 1
        if found < 0:
            continue  # a character pdfium never printed ("^", "{"): left unmapped, never guessed
        mapping[i] = indices[found]
        p = found + 1
    return _runs(mapping, base)


def _runs(mapping: list[int], base: int) -> list[Run]:
    runs: list[Run] = []
    for offset, index in enumerate(mapping):
        if index < 0:
            continue
        if runs and runs[-1][0] + runs[-1][2] == base + offset and runs[-1][1] + runs[-1][2] == index:
            runs[-1][2] += 1
        else:
            runs.append([base + offset, index, 1])
    return runs


def char_indices(runs: Sequence[Sequence[int]], start: int, end: int) -> list[tuple[int, int]]:
    """Return ``(canonical offset, pdfium index)`` for every mapped offset in ``[start, end)``, in order."""
    found: list[tuple[int, int]] = []
    for offset, index, length in runs:
        lo, hi = max(start, offset), min(end, offset + length)
        found.extend((o, index + o - offset) for o in range(lo, hi))
    return found
