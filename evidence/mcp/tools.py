"""The Model Context Protocol server's tools: where desktop assistants, coding agents and notebooks reach the app.

`search`, `read_document`, `ask`, `get_answer`, `get_span` and `list_collections`, each acting for the owner of an
API key, with the API's quotas and isolation: a collection, run or span of another user is "not found", never
shown. Over HTTP the key is the request's `Authorization: Bearer` header (checked before any tool runs, see
mcp/asgi.py); over stdio (`manage.py mcp`) it is the EVIDENCE_API_KEY variable of the server's process.

The tools are plain functions, so the SDK runs each in a worker thread where the Django ORM may be used.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.urls import reverse
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from .. import schemas
from ..auth_keys import verify_key
from ..models import Collection, Run, Span
from ..piserini import site_url
from ..presenting import run_citations, short_answer_view
from ..ratelimit import bucket_name, take
from ..retrieval import piserini
from ..run_state import StoredAnswer, user_config
from ..services import queueing, runs

INSTRUCTIONS = (
    "Evidence desk: research over your own collections of papers, every answer traceable to exact spans. "
    "list_collections names them; search ranks a collection's documents for a query; read_document reads one by "
    "lines; ask starts a research run and returns its answer with each citation's document, character offsets, "
    "page and quote; get_span gives one cited span with the text around it."
)
KEY_VARIABLE = "EVIDENCE_API_KEY"
ASK_WAIT_S = 120.0
MAX_WAIT_S = 600.0
POLL_S = 0.5
SPAN_CONTEXT_CHARS = 300


class Caller:
    """The user a tool call acts for, and how to write a link back into the app for them."""

    def __init__(self, owner: Any, base_url: str) -> None:
        self.owner = owner
        self.base_url = base_url.rstrip("/")

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"


def caller_of(ctx: Context) -> Caller:
    """The key's owner: the HTTP guard's (verified before the call), else the stdio process's own key."""
    request = ctx.request_context.request if ctx.request_context else None
    if request is not None:
        owner_id = getattr(request.state, "evidence_owner_id", None)
        if owner_id is None:
            raise ToolError("Send your API key as `Authorization: Bearer <key>` (create one on the API keys page).")
        from django.contrib.auth import get_user_model

        owner = get_user_model().objects.get(pk=owner_id)
        configured = settings.EVIDENCE_SITE_URL
        return Caller(owner, configured or str(request.base_url))
    raw = os.environ.get(KEY_VARIABLE, "").strip()
    key = verify_key(raw) if raw else None
    if key is None:
        raise ToolError(
            f"Set {KEY_VARIABLE} to one of your API keys in the MCP client's configuration of this server "
            "(create a key on the API keys page); the one given is unknown or revoked."
            if raw
            else f"Set {KEY_VARIABLE} to one of your API keys in the MCP client's configuration of this server."
        )
    decision = take(bucket_name("key", key.key_hash[:24]), key.rate_per_minute)
    if not decision.allowed:
        raise ToolError(f"Rate limit reached: retry in {decision.retry_after_s} s.")
    return Caller(key.owner, site_url())


def with_database[F: Callable[..., Any]](tool: F) -> F:
    """Run a tool with a fresh database connection (the SDK's worker threads are reused between calls)."""

    @functools.wraps(tool)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        try:
            return tool(*args, **kwargs)
        finally:
            close_old_connections()

    return wrapper  # type: ignore[return-value]


def owned_collection(caller: Caller, collection: str) -> Collection:
    """One of the caller's collections, by id or name; another user's is not found, as a missing one."""
    mine = Collection.objects.filter(owner=caller.owner)
    found = None
    if collection.strip().isdecimal() and 0 < int(collection) <= schemas.MAX_ID:
        found = mine.filter(pk=int(collection)).first()
    if found is None and "\x00" not in collection:
        found = mine.filter(name=collection.strip()).first()
    if found is None:
        raise ToolError(f"No collection {collection!r} of yours: call list_collections for their ids and names.")
    return found


# ------------------------------------------------------------------ the tools


def list_collections(ctx: Context) -> dict[str, Any]:
    """List your collections: id, name and number of documents (pass the id or the name to the other tools)."""
    caller = caller_of(ctx)
    rows = Collection.objects.filter(owner=caller.owner).order_by("name")
    return {
        "collections": [
            {"id": c.pk, "name": c.name, "documents": c.documents.count(), "url": caller.url(f"/collections/{c.pk}/")}
            for c in rows
        ]
    }


def search(ctx: Context, collection: str, query: str, limit: int = 10, offset: int = 1) -> dict[str, Any]:
    """Rank a collection's documents for a query (BM25): docids, scores, titles and snippets, `limit` per page
    (at most 1,000) from rank `offset` (1-based); `nextOffset` gives the next page while `hasMore`."""
    found = owned_collection(caller_of(ctx), collection)
    if not query.strip():
        raise ToolError("Give a query: a few words of what you are looking for.")
    if offset < 1 or limit < 1:
        raise ToolError("offset and limit start at 1.")
    return piserini.search(found.pk, query, offset, limit)


def read_document(ctx: Context, collection: str, docid: str, offset: int = 1, limit: int = 200) -> dict[str, Any]:
    """Read a document of a collection by lines: `limit` lines (at most 500) from line `offset` (1-based); the
    answer says the total and whether more follows."""
    found = owned_collection(caller_of(ctx), collection)
    if offset < 1 or limit < 1:
        raise ToolError("offset and limit start at 1.")
    result = piserini.read(found.pk, docid, offset, limit)
    if result.get("found") is False:
        raise ToolError(f"No document {docid!r} in {found.name!r}: search the collection for its docids.")
    return result


def ask(
    ctx: Context,
    collection: str,
    question: str,
    documents: list[str] | None = None,
    wait_s: float = ASK_WAIT_S,
) -> dict[str, Any]:
    """Research a question over a collection (optionally only some of its documents, by docid): start a run and
    wait up to `wait_s` seconds (at most 600) for its answer, with each citation's docid, character offsets, page,
    quote and a link to audit it beside the source. A run still working returns its id: call get_answer later."""
    caller = caller_of(ctx)
    found = owned_collection(caller, collection)
    try:
        scope = runs.check_request(found, question, documents)
        # Committed before it is queued (start_run): a worker taking the message finds the row.
        run, _ = runs.start_run(caller.owner, found, question, system="dual", config=user_config("hybrid", scope))
    except runs.RunRefused as error:
        raise ToolError(str(error)) from error
    except runs.QueueDown as error:
        raise ToolError(f"{error} Retry in {queueing.RETRY_AFTER_S} s.") from error
    deadline = time.monotonic() + max(0.0, min(float(wait_s), MAX_WAIT_S))
    while not run.is_finished and time.monotonic() < deadline:
        time.sleep(POLL_S)
        run.refresh_from_db()
    return answer_of(caller, run)


def get_answer(ctx: Context, run_id: int) -> dict[str, Any]:
    """The answer of one of your runs (as ask returns it): its state, short answer, confidence and citations."""
    caller = caller_of(ctx)
    run = Run.objects.filter(owner=caller.owner, pk=run_id).first() if 0 < run_id <= schemas.MAX_ID else None
    if run is None:
        raise ToolError(f"No run {run_id} of yours.")
    return answer_of(caller, run)


def get_span(ctx: Context, span_id: int, context_chars: int = SPAN_CONTEXT_CHARS) -> dict[str, Any]:
    """One evidence span a run found (a citation's `span_id`): its exact quote, docid, character offsets and page,
    with up to `context_chars` characters (at most 2,000) of the document before and after it."""
    caller = caller_of(ctx)
    span = None
    if 0 < span_id <= schemas.MAX_ID:
        span = Span.objects.select_related("document").filter(pk=span_id, run__owner=caller.owner).first()
    if span is None:
        raise ToolError(f"No span {span_id} in your runs: take span ids from the citations ask returns.")
    around = max(0, min(int(context_chars), 2000))
    text = span.document.text
    return {
        **span_out(caller, span),
        "before": text[max(0, span.start - around) : span.start],
        "after": text[span.end : span.end + around],
        "matches_source": text[span.start : span.end] == span.quote,
    }


# ------------------------------------------------------------------ answers as the tools return them


def answer_of(caller: Caller, run: Run) -> dict[str, Any]:
    """A run's state and answer: the short answer (or why none is given), confidence, explanation, citations."""
    short = short_answer_view(run) if run.is_finished else {"state": "working", "text": "", "confidence": None}
    out: dict[str, Any] = {
        "run_id": run.pk,
        "status": run.status,
        "finished": run.is_finished,
        "short_answer_state": short["state"],
        "short_answer": short["text"] if short["state"] == "short" else "",
        "confidence": short.get("confidence"),
        "explanation": StoredAnswer.of(run).explanation,
        "error": run.error,
        "run_url": caller.url(reverse("run", args=[run.pk])),
        "citations": [
            {"number": number, **span_out(caller, citation.span)}
            for number, citation in enumerate(run_citations(run), start=1)
        ],
    }
    if not run.is_finished:
        out["note"] = f"The run is still working: call get_answer with run_id {run.pk} in a little while."
    return out


def span_out(caller: Caller, span: Span) -> dict[str, Any]:
    audit = reverse("audit", args=[span.run_id])
    return {
        "span_id": span.pk,
        "docid": span.document.docid,
        "title": span.document.title,
        "start": span.start,
        "end": span.end,
        "page": span.page,
        "quote": span.quote,
        "audit_url": caller.url(f"{audit}?span={span.pk}#span"),
    }


TOOLS: tuple[Callable[..., Any], ...] = (list_collections, search, read_document, ask, get_answer, get_span)
READ_ONLY = {list_collections, search, read_document, get_answer, get_span}


def build_server() -> MCPServer:
    """A server with every tool; one per event loop (mcp/asgi.py), or one for a stdio process."""
    from mcp.types import ToolAnnotations

    server = MCPServer("Evidence desk", instructions=INSTRUCTIONS)
    for tool in TOOLS:
        server.add_tool(
            with_database(tool),
            annotations=ToolAnnotations(read_only_hint=tool in READ_ONLY, open_world_hint=False),
        )
    return server
