"""The analysed terms of a text: the English analyzer of the BM25 index (stemmed, stopwords out), cached.

Every scorer of sentences, paragraphs and answers compares texts through these terms, so a question's words and a
document's match the way the index matches them.
"""

from __future__ import annotations

from functools import lru_cache

from ..retrieval import get_analyzer

_analyze = get_analyzer("english")


@lru_cache(maxsize=200_000)
def terms(text: str) -> tuple[str, ...]:
    """Return the analysed terms of a text (cached: blocks are judged for many goals)."""
    return tuple(_analyze(text))
