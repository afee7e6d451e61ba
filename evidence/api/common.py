"""What every API resource shares: paging, the owner's objects (another user's is a 404), query bounds, spans."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from ninja import Query
from ninja.errors import HttpError

from .. import schemas
from ..models import Span

ID = {"ge": 1, "le": schemas.MAX_ID}
LIMIT = Query(50, ge=1, le=200)
OFFSET = Query(0, ge=0, le=10**9)
ERRORS, UNSAFE = schemas.ERRORS, schemas.UNSAFE


def paged(items: QuerySet, limit: int, offset: int) -> dict[str, Any]:
    return {"count": items.count(), "limit": limit, "offset": offset, "items": list(items[offset : offset + limit])}


def not_found(what: str) -> HttpError:
    return HttpError(404, f"No such {what}.")


def owned(model_qs: QuerySet, pk: int, what: str):
    """Return the caller's object or raise 404 (another user's object is indistinguishable from none)."""
    obj = model_qs.filter(pk=pk).first() if 0 < pk <= schemas.MAX_ID else None
    if obj is None:
        raise not_found(what)
    return obj


def span_out(s: Span) -> dict[str, Any]:
    return {
        "id": s.pk,
        "run_id": s.run_id,
        "document_id": s.document_id,
        "docid": s.document.docid,
        "start": s.start,
        "end": s.end,
        "quote": s.quote,
        "page": s.page,
        "probability": s.probability,
        "delivered": s.delivered,
        "matches_source": s.matches_source,
    }
