"""Pi-Serini `http-json` backend endpoints over a collection (the agent's own contract; no extra properties).

Two ways in:
- `/api/piserini/<collection>/...` with the API's usual authentication (a key or a session); `<collection>` is
  one of your collections' id or name;
- `/api/piserini/b/<token>/...`, a secret backend URL that needs no headers at all, which is what Pi-Serini's
  shipped adapter sends. Create, list and revoke those under `/api/collections/<id>/piserini-urls`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from .. import schemas
from ..auth_keys import RateLimited
from ..models import Collection, PiseriniBackend
from ..ratelimit import bucket_name, take
from ..retrieval import piserini
from .backends import create_backend, extension_config, remote_allowed, revoke_backend, site_url, verify_token

router = Router(tags=["pi-serini backend"])
manage_router = Router(tags=["pi-serini backend"])

BIG = 10**9  # offsets and limits past this are refused (422); limits above the maxima are clamped, not refused
ERRORS, UNSAFE = schemas.ERRORS, schemas.UNSAFE
SECRET_ERRORS = schemas.UNSAFE  # here 403 is a client that is not on this machine


class SearchRequest(schemas.BodyIn):
    query: schemas.Text
    offset: int = Field(1, ge=1, le=BIG)
    limit: int = Field(10, ge=1, le=BIG, description=f"clamped to {piserini.MAX_PAGE}")


class ReadRequest(schemas.BodyIn):
    docid: schemas.Text
    offset: int = Field(1, ge=1, le=BIG)
    limit: int = Field(200, ge=1, le=BIG, description=f"clamped to {piserini.MAX_READ_LINES}")


def kept_id(name: str) -> str:
    """The operation's id in the OpenAPI schema as it was when this module was evidence/api_piserini.py (Django
    Ninja names an operation after its module; clients generated from the schema call it by that id)."""
    return f"evidence_api_piserini_{name}"


def _collection(request: HttpRequest, collection: str) -> Collection:
    """Return the caller's collection by id, else by name (a numeric name still resolves when no id matches)."""
    mine = Collection.objects.filter(owner=request.auth)
    found = None
    if collection.isdecimal() and 0 < int(collection) <= schemas.MAX_ID:
        found = mine.filter(pk=int(collection)).first()
    if found is None and "\x00" not in collection:
        found = mine.filter(name=collection).first()
    if found is None:
        raise HttpError(404, f"No such collection {collection!r}: use one of your collections' id or name.")
    return found


@router.get(
    "/{collection}/capabilities",
    response={200: dict[str, Any], **ERRORS},
    summary="Backend capabilities (Pi-Serini http-json)",
    operation_id=kept_id("capabilities"),
)
def capabilities(request: HttpRequest, collection: str):
    return piserini.capabilities(_collection(request, collection).pk)


@router.post(
    "/{collection}/search",
    response={200: dict[str, Any], **UNSAFE},
    summary="Search a collection (Pi-Serini http-json)",
    operation_id=kept_id("search"),
)
def search(request: HttpRequest, collection: str, body: SearchRequest):
    return piserini.search(_collection(request, collection).pk, body.query, body.offset, body.limit)


@router.post(
    "/{collection}/read",
    response={200: dict[str, Any], **UNSAFE},
    summary="Read a document by lines (Pi-Serini http-json)",
    operation_id=kept_id("read"),
)
def read(request: HttpRequest, collection: str, body: ReadRequest):
    return piserini.read(_collection(request, collection).pk, body.docid, body.offset, body.limit)


# ------------------------------------------------------------------ the secret backend URL (no headers)


def _backend(request: HttpRequest, token: str) -> PiseriniBackend:
    """Return the live backend a token names, after the loopback and rate checks."""
    if not remote_allowed(request):
        raise HttpError(403, "Pi-Serini backend URLs answer loopback clients only (EVIDENCE_PISERINI_ALLOW_REMOTE).")
    backend = verify_token(token)
    if backend is None:
        raise HttpError(401, "This Pi-Serini backend URL is unknown or revoked: create a new one.")
    decision = take(bucket_name("piserini", backend.token_hash[:24]), settings.EVIDENCE_PISERINI_RATE_PER_MINUTE)
    if not decision.allowed:
        raise RateLimited(decision.retry_after_s)
    return backend


@router.get(
    "/b/{token}/capabilities",
    auth=None,
    response={200: dict[str, Any], **SECRET_ERRORS},
    summary="Backend capabilities (secret backend URL, no headers)",
    operation_id=kept_id("secret_capabilities"),
)
def secret_capabilities(request: HttpRequest, token: str):
    return piserini.capabilities(_backend(request, token).collection_id)


@router.post(
    "/b/{token}/search",
    auth=None,
    response={200: dict[str, Any], **SECRET_ERRORS},
    summary="Search (secret backend URL, no headers)",
    operation_id=kept_id("secret_search"),
)
def secret_search(request: HttpRequest, token: str, body: SearchRequest):
    return piserini.search(_backend(request, token).collection_id, body.query, body.offset, body.limit)


@router.post(
    "/b/{token}/read",
    auth=None,
    response={200: dict[str, Any], **SECRET_ERRORS},
    summary="Read a document by lines (secret backend URL, no headers)",
    operation_id=kept_id("secret_read"),
)
def secret_read(request: HttpRequest, token: str, body: ReadRequest):
    return piserini.read(_backend(request, token).collection_id, body.docid, body.offset, body.limit)


# ------------------------------------------------------------------ managing backend URLs


class BackendIn(schemas.BodyIn):
    name: schemas.Text = Field("", max_length=100)


class BackendOut(Schema):
    id: int
    collection_id: int
    name: str
    prefix: str
    created_at: Any
    last_used_at: Any = None
    revoked_at: Any = None


class BackendCreated(BackendOut):
    url: str = Field(description="the base URL, shown this once: append capabilities, search or read")
    config: dict[str, Any] = Field(description="Pi-Serini's PI_SEARCH_EXTENSION_CONFIG for this backend")


class BackendPage(Schema):
    count: int
    items: list[BackendOut]


def backend_out(backend: PiseriniBackend) -> dict[str, Any]:
    fields = ("id", "collection_id", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    return {f: getattr(backend, f) for f in fields}


def _my_collection(request: HttpRequest, collection_id: int) -> Collection:
    found = None
    if 0 < collection_id <= schemas.MAX_ID:
        found = Collection.objects.filter(owner=request.user, pk=collection_id).first()
    if found is None:
        raise HttpError(404, "No such collection.")
    return found


@manage_router.get(
    "/collections/{collection_id}/piserini-urls",
    response={200: BackendPage, **ERRORS},
    operation_id=kept_id("list_backends"),
)
def list_backends(request: HttpRequest, collection_id: int):
    """List a collection's Pi-Serini backend URLs (by prefix; the secret is never shown again)."""
    rows = _my_collection(request, collection_id).piserini_backends.order_by("-created_at", "-id")
    return {"count": rows.count(), "items": [backend_out(b) for b in rows]}


@manage_router.post(
    "/collections/{collection_id}/piserini-urls",
    response={201: BackendCreated, **UNSAFE},
    operation_id=kept_id("create_backend_url"),
)
def create_backend_url(request: HttpRequest, collection_id: int, body: BackendIn):
    """Create a secret Pi-Serini backend URL for a collection; its URL and config are in this response only."""
    backend, token = create_backend(_my_collection(request, collection_id), body.name)
    config = extension_config(backend, token, site_url(request))
    url = config["backend"]["endpoints"]["searchUrl"].removesuffix("search")
    return Status(201, {**backend_out(backend), "url": url, "config": config})


@manage_router.post(
    "/piserini-urls/{backend_id}/revoke",
    response={200: BackendOut, **UNSAFE},
    operation_id=kept_id("revoke_backend_url"),
)
def revoke_backend_url(request: HttpRequest, backend_id: int):
    """Revoke a Pi-Serini backend URL: its requests get 401 from now on."""
    if not (0 < backend_id <= schemas.MAX_ID) or not revoke_backend(request.user, backend_id):
        raise HttpError(404, "No such live backend URL.")
    return backend_out(PiseriniBackend.objects.get(pk=backend_id))
