"""Pi-Serini's `http-json` backend contract over our index, so the Pi-Serini agent can run against it unchanged.

Search `{query, offset?, limit}` -> `{hits, totalHits, nextOffset?, hasMore, timingMs}`; read `{docid, offset?,
limit?}` -> `{found: false, docid}` or the line-paged text; capabilities describe both. Offsets are 1-based.
"""

from __future__ import annotations

import time
from typing import Any

from ..agent.tools import document_lines, excerpt_around
from ..models import Document
from .searchers import get_searcher

MAX_PAGE = 100
MAX_READ_LINES = 500
SEARCH_DEPTH = 1000
SNIPPET_CHARS = 300


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
    """Return one page of the ranking for `query` (ranks `offset`..`offset+limit-1`)."""
    started = time.perf_counter()
    hits = get_searcher(searcher, collection_id).search(query, SEARCH_DEPTH) if query.strip() else []
    page = hits[offset - 1 : offset - 1 + limit]
    documents = {
        d.docid: d for d in Document.objects.filter(collection_id=collection_id, docid__in=[h.docid for h in page])
    }
    words = query.split()
    out_hits = []
    for hit in page:
        document = documents.get(hit.docid)
        if document is None:
            continue
        flat = " ".join(document.text.split())
        snippet = excerpt_around(flat[:5000], words, SNIPPET_CHARS)
        out_hits.append(
            {
                "docid": hit.docid,
                "score": round(float(hit.score), 6),
                "title": document.title,
                "snippet": snippet,
                "snippetTruncated": len(snippet) < len(flat),
            }
        )
    end = offset - 1 + len(page)
    response: dict[str, Any] = {
        "hits": out_hits,
        "totalHits": len(hits),
        "hasMore": end < len(hits),
        "timingMs": round((time.perf_counter() - started) * 1000, 3),
    }
    if end < len(hits):
        response["nextOffset"] = end + 1
    return response


def read(collection_id: int, docid: str, offset: int = 1, limit: int = 200) -> dict[str, Any]:
    """Return lines `offset`..`offset+limit-1` of a document, or `{found: false}`."""
    document = Document.objects.filter(collection_id=collection_id, docid=docid).first()
    if document is None:
        return {"found": False, "docid": docid}
    lines = document_lines(document.text)
    total = len(lines)
    first = min(offset, total + 1)
    last = min(total, first + limit - 1)
    text = document.text[lines[first - 1][0] : lines[last - 1][1]] if first <= last else ""
    response: dict[str, Any] = {
        "found": True,
        "docid": docid,
        "text": text,
        "title": document.title,
        "offset": offset,
        "limit": limit,
        "totalUnits": total,
        "returnedOffsetStart": first,
        "returnedOffsetEnd": last,
        "truncated": last < total,
    }
    if last < total:
        response["nextOffset"] = last + 1
    return response
