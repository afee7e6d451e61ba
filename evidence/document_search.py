"""Search inside one document's canonical text: every place its words occur, in order, with page and context."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_QUERY_CHARS = 200
MAX_QUERY_WORDS = 12
MAX_MATCHES = 200
CONTEXT_CHARS = 70


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    page: int | None
    before: str
    text: str
    after: str


def query_pattern(query: str) -> re.Pattern[str] | None:
    """The words of a query, in order, with any run of spaces or line breaks between them; case is ignored."""
    words = query[:MAX_QUERY_CHARS].split()[:MAX_QUERY_WORDS]
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)


def find_matches(
    text: str, query: str, page_at: Callable[[int], int | None] = lambda _offset: None, limit: int = MAX_MATCHES
) -> list[Match]:
    """Every occurrence of the query in the text (at most `limit`), each with its page and a little context."""
    pattern = query_pattern(query)
    if pattern is None:
        return []
    found = []
    for hit in pattern.finditer(text):
        start, end = hit.span()
        before = " ".join(text[max(0, start - CONTEXT_CHARS) : start].split())
        after = " ".join(text[end : end + CONTEXT_CHARS].split())
        found.append(Match(start, end, page_at(start), before, " ".join(hit.group().split()), after))
        if len(found) >= limit:
            break
    return found
