"""Documents: their metadata, canonical text, passages and the spans your runs found in them."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Query, Router

from .. import schemas
from ..models import Collection, Document, Span
from . import common
from .common import ERRORS, LIMIT, OFFSET, owned, span_out

router = Router()


def document_out(d: Document) -> dict[str, Any]:
    return {
        "id": d.pk,
        "collection_id": d.collection_id,
        "docid": d.docid,
        "title": d.title,
        "source_name": d.source_name,
        "source_format": d.source_format,
        "length": len(d.text),
        "pages": d.pages or [],
        "metadata": d.metadata or {},
        "created_at": d.created_at,
    }


def my_documents(request: HttpRequest) -> QuerySet:
    return Document.objects.filter(collection__owner=request.user)


@router.get(
    "/collections/{collection_id}/documents", response={200: schemas.DocumentPage, **ERRORS}, tags=["documents"]
)
def list_documents(request: HttpRequest, collection_id: int, limit: int = LIMIT, offset: int = OFFSET):
    """List a collection's documents."""
    collection = owned(Collection.objects.filter(owner=request.user), collection_id, "collection")
    page = common.paged(collection.documents.order_by("id"), limit, offset)
    page["items"] = [document_out(d) for d in page["items"]]
    return page


@router.get("/documents/{document_id}", response={200: schemas.DocumentOut, **ERRORS}, tags=["documents"])
def get_document(request: HttpRequest, document_id: int):
    """Return a document's metadata (its text is at /text)."""
    return document_out(owned(my_documents(request), document_id, "document"))


@router.get("/documents/{document_id}/text", response={200: schemas.DocumentText, **ERRORS}, tags=["documents"])
def document_text(
    request: HttpRequest,
    document_id: int,
    start: int = Query(0, ge=0, le=10**10),
    end: int | None = Query(None, ge=0, le=10**10),
):
    """Return the canonical text, or the slice text[start:end] (every offset in the system indexes it)."""
    document = owned(my_documents(request), document_id, "document")
    length = len(document.text)
    stop = length if end is None else min(end, length)
    begin = min(start, stop)
    return {
        "id": document.pk,
        "docid": document.docid,
        "length": length,
        "start": begin,
        "end": stop,
        "text": document.text[begin:stop],
    }


@router.get("/documents/{document_id}/passages", response={200: schemas.PassagePage, **ERRORS}, tags=["documents"])
def document_passages(request: HttpRequest, document_id: int, limit: int = LIMIT, offset: int = OFFSET):
    """List a document's retrieval passages with their exact offsets and text."""
    document = owned(my_documents(request), document_id, "document")
    page = common.paged(document.passages.order_by("ordinal").only("ordinal", "start", "end"), limit, offset)
    page["items"] = [
        {"ordinal": p.ordinal, "start": p.start, "end": p.end, "text": document.text[p.start : p.end]}
        for p in page["items"]
    ]
    return page


@router.get("/documents/{document_id}/spans", response={200: schemas.SpanPage, **ERRORS}, tags=["documents"])
def document_spans(request: HttpRequest, document_id: int, limit: int = LIMIT, offset: int = OFFSET):
    """List the evidence spans your runs found in a document."""
    document = owned(my_documents(request), document_id, "document")
    rows = Span.objects.filter(document=document, run__owner=request.user).select_related("document").order_by("id")
    page = common.paged(rows, limit, offset)
    page["items"] = [span_out(s) for s in page["items"]]
    return page
