"""Pi-Serini `http-json` backend endpoints over a collection (the agent's own contract; no extra properties)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema
from pydantic import ConfigDict

from .models import Collection
from .retrieval import piserini

router = Router(tags=["pi-serini backend"])


class SearchRequest(Schema):
    model_config = ConfigDict(extra="forbid")
    query: str
    offset: int = Field(1, ge=1)
    limit: int = Field(10, ge=1, le=piserini.MAX_PAGE)


class ReadRequest(Schema):
    model_config = ConfigDict(extra="forbid")
    docid: str
    offset: int = Field(1, ge=1)
    limit: int = Field(200, ge=1, le=piserini.MAX_READ_LINES)


def _collection(request: HttpRequest, collection_id: int) -> Collection:
    return get_object_or_404(Collection, pk=collection_id, owner=request.auth)


@router.get("/{collection_id}/capabilities", summary="Backend capabilities (Pi-Serini http-json)")
def capabilities(request: HttpRequest, collection_id: int) -> dict[str, Any]:
    return piserini.capabilities(_collection(request, collection_id).pk)


@router.post("/{collection_id}/search", summary="Search a collection (Pi-Serini http-json)")
def search(request: HttpRequest, collection_id: int, body: SearchRequest) -> dict[str, Any]:
    collection = _collection(request, collection_id)
    return piserini.search(collection.pk, body.query, body.offset, body.limit)


@router.post("/{collection_id}/read", summary="Read a document by lines (Pi-Serini http-json)")
def read(request: HttpRequest, collection_id: int, body: ReadRequest) -> dict[str, Any]:
    collection = _collection(request, collection_id)
    return piserini.read(collection.pk, body.docid, body.offset, body.limit)
