"""The Pi-Serini tool contract over our index, implemented once: ranking a query to depth 1,000 (optionally
within a run's documents) and reading a document by 1-based line windows. Two faces use it: the `http-json`
backend below (JSON, so the Pi-Serini agent runs against us unchanged) and the research tools a run's planner
calls (evidence/agent/core/tools.py: the same ranking and windows as text, recorded on the run).

Search `{query, offset?, limit}` -> `{hits, totalHits, nextOffset?, hasMore, timingMs}`; read `{docid, offset?,
limit?}` -> `{found: false, docid}` or the line-paged text; capabilities describe both. Offsets are 1-based and
`timingMs` is Pi-Serini's object `{request?, backendInit?, backendUptime?}` (milliseconds).

Limits are clamped, not refused: Pi-Serini's search tool always asks for 1,000 hits (its cache depth) and its
read tool passes the model's limit through, and it reads neither maxPageSize nor maxReadLimit first.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db.models.functions import Length, Substr

from ..models import Document
from .excerpts import document_lines, excerpt_around
from .searchers import Searcher, get_searcher
from .types import Hit

MAX_PAGE = 1000  # Pi-Serini's search tool asks for exactly this many
MAX_READ_LINES = 500
SEARCH_DEPTH = 1000
SNIPPET_CHARS = 300
SNIPPET_SOURCE_CHARS = 5000
STARTED = time.monotonic()  # the backend's uptime is this process's


def timing(started: float) -> dict[str, float]:
    """Return Pi-Serini's timingMs object for a request that began at perf_counter() == started."""
    return {
        "request": round((time.perf_counter() - started) * 1000, 3),
        "backendUptime": round((time.monotonic() - STARTED) * 1000, 3),
    }


def rank(searcher: Searcher, query: str, scope: Collection[str] = ()) -> list[Hit]:
    """The contract's ranking: up to SEARCH_DEPTH documents for the query, only those in `scope` when given."""
    hits = searcher.search(query, SEARCH_DEPTH) if query.strip() else []
    return [hit for hit in hits if hit.docid in scope] if scope else hits


@dataclass(frozen=True)
class Window:
    """Lines first..last (1-based, inclusive) of a document's `total`, at characters start..end of its text."""

    first: int
    last: int
    total: int
    start: int
    end: int

    @property
    def empty(self) -> bool:
        return self.first > self.last

    @property
    def truncated(self) -> bool:
        return not self.empty and self.last < self.total


def line_window(text: str, offset: int, limit: int) -> Window:
    """The contract's read: lines offset..offset+limit-1 of the text, cut at its end (empty past it)."""
    lines = document_lines(text) if text else []
    total = len(lines)
    last = min(total, offset + limit - 1)
    if offset < 1 or offset > last:
        return Window(offset, offset - 1, total, 0, 0)
    return Window(offset, last, total, lines[offset - 1][0], lines[last - 1][1])


def capabilities(collection_id: int) -> dict[str, Any]:
    return {
        "backendId": f"evidence-desk:{collection_id}",
        "supportsScore": True,
        "supportsSnippets": True,
        "supportsExactTotalHits": True,
        "maxPageSize": MAX_PAGE,
        "maxReadLimit": MAX_READ_LINES,
    }


def search(collection_id: int, query: str, offset: int = 1, limit: int = 10, searcher: str = "bm25") -> dict[str, Any]:
    """Return one page of the ranking for `query` (ranks `offset`..`offset+limit-1`, limit clamped to MAX_PAGE)."""
    started = time.perf_counter()
    limit = max(1, min(limit, MAX_PAGE))
    try:
        hits = rank(get_searcher(searcher, collection_id), query)
    except LookupError:  # a collection with no documents has no index yet: nothing matches (zero hits, valid paging)
        hits = []
    page = hits[offset - 1 : offset - 1 + limit]
    # A page can be 1,000 documents: read only the head of each text, where the snippet comes from.
    heads = Document.objects.filter(collection_id=collection_id, docid__in=[h.docid for h in page]).values_list(
        "docid", "title", Substr("text", 1, SNIPPET_SOURCE_CHARS), Length("text")
    )
    documents = {docid: (title, head, length) for docid, title, head, length in heads}
    words = query.split()
    out_hits = []
    for hit in page:
        if hit.docid not in documents:
            continue
        title, head, length = documents[hit.docid]
        flat = " ".join(head.split())
        snippet = excerpt_around(flat, words, SNIPPET_CHARS)
        out_hits.append(
            {
                "docid": hit.docid,
                "score": round(float(hit.score), 6),
                "title": title,
                "snippet": snippet,
                "snippetTruncated": len(snippet) < len(flat) or length > SNIPPET_SOURCE_CHARS,
            }
        )
    end = offset - 1 + len(page)
    response: dict[str, Any] = {
        "hits": out_hits,
        "totalHits": len(hits),
        "hasMore": end < len(hits),
    }
    if end < len(hits):
        response["nextOffset"] = end + 1
    response["timingMs"] = timing(started)
    return response


def read(collection_id: int, docid: str, offset: int = 1, limit: int = 200) -> dict[str, Any]:
    """Return lines `offset`..`offset+limit-1` of a document (limit clamped), or `{found: false}`.

    Reading past the end is a found document with no text and no returned range (the contract's range
    fields are 1-based, so an empty range cannot be written as one).
    """
    started = time.perf_counter()
    limit = max(1, min(limit, MAX_READ_LINES))
    document = Document.objects.filter(collection_id=collection_id, docid=docid).only("title", "text").first()
    if document is None:
        return {"found": False, "docid": docid, "timingMs": timing(started)}
    window = line_window(document.text, offset, limit)
    response: dict[str, Any] = {
        "found": True,
        "docid": docid,
        "text": document.text[window.start : window.end],
        "title": document.title,
        "offset": offset,
        "limit": limit,
        "totalUnits": window.total,
        "truncated": window.truncated,
    }
    if not window.empty:
        response["returnedOffsetStart"] = window.first
        response["returnedOffsetEnd"] = window.last
        if window.truncated:
            response["nextOffset"] = window.last + 1
    response["timingMs"] = timing(started)
    return response
