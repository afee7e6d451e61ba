"""Views of a document's text that search tools show: line ranges for paged reading, excerpts around matches.

Both the research tools (System 2) and the Pi-Serini backend page documents and quote hits the same way.
"""

from __future__ import annotations

import re


def document_lines(text: str) -> list[tuple[int, int]]:
    """Return (start, end) of each line of the text (lines split at '\\n'), for line-paged reading."""
    spans, start = [], 0
    for match in re.finditer("\n", text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def excerpt_around(text: str, words: list[str], width: int) -> str:
    """Return about `width` characters of text around the first matched word, on word boundaries."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    position = min((m.start() for w in words if (m := re.search(re.escape(w), flat, re.I))), default=0)
    start = max(0, position - width // 3)
    start = flat.rfind(" ", 0, start) + 1 if start else 0
    end = flat.rfind(" ", start, start + width)
    end = end if end > start else start + width
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
