"""Runs: start one (or a follow-up), list, cancel, events and their stream, the answer, exports, spans, compare."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from ninja import Query, Router, Status
from ninja.errors import HttpError

from .. import schemas, streams
from ..eval import compare as compare_runs
from ..models import Collection, Run
from ..presenting import FORMATS, export_response
from ..run_state import RunConfig, StoredAnswer, user_config
from ..services import queueing, runs
from ..streams import json_events, resume_point
from . import common
from .common import ERRORS, ID, LIMIT, OFFSET, UNSAFE, not_found, owned, span_out

router = Router()


def run_out(run: Run) -> dict[str, Any]:
    fields = (
        "id",
        "collection_id",
        "question",
        "task",
        "system",
        "config",
        "status",
        "error",
        "budget_s",
        "spend_cap_usd",
        "spent_usd",
        "calls",
        "last_seq",
        "created_at",
        "started_at",
        "finished_at",
        "follows_id",
    )
    out = {f: getattr(run, f) for f in fields}
    out["follows"] = out.pop("follows_id")
    out["config"] = RunConfig.of(run).as_stored()
    return {**out, "elapsed_s": run.elapsed_s}


def my_run(request: HttpRequest, run_id: int) -> Run:
    """Return the caller's run, ending it first if its worker died (so no client ever sees it stuck)."""
    run = owned(Run.objects.filter(owner=request.user), run_id, "run")
    if (
        run.status == Run.Status.RUNNING
        and run.heartbeat_at
        and (timezone.now() - run.heartbeat_at).total_seconds() > runs.stale_window_s()
    ):
        runs.reap_stale_runs(run_id=run.pk)
        run.refresh_from_db()
    return run


def idempotency_key_of(request: HttpRequest) -> str | None:
    """Return the request's Idempotency-Key header (400 when it is too long or not printable ASCII)."""
    key = request.headers.get("Idempotency-Key", "").strip()
    if not key:
        return None
    if len(key) > 200 or not key.isascii() or not key.isprintable():
        raise HttpError(400, "The Idempotency-Key header must be 1 to 200 printable ASCII characters.")
    return key


def start_or_refuse(start: Callable[[], tuple[Run, bool]], same: Callable[[Run], bool]) -> Run | HttpResponse:
    """Start a run; a refused request is a 400 naming what is wrong, a queue that is away a 503 with Retry-After,
    and an Idempotency-Key that already started a run `same` does not recognise a 409."""
    try:
        run, created = start()
    except runs.RunRefused as error:
        raise HttpError(400, str(error)) from error
    except runs.QueueDown as error:
        response = JsonResponse({"detail": str(error)}, status=503)
        response["Retry-After"] = str(queueing.RETRY_AFTER_S)
        return response
    if not created and not same(run):
        raise HttpError(409, "This Idempotency-Key was already used for a different run: use a new key.")
    return run


@router.post(
    "/runs",
    response={201: schemas.RunOut, 400: schemas.Error, 409: schemas.Error, 503: schemas.Error, **UNSAFE},
    tags=["runs"],
)
def create_run(request: HttpRequest, body: schemas.RunIn):
    """Ask a question over one of your collections; the run is queued and its events stream as it works.

    Send an `Idempotency-Key` header to retry safely: the same key returns the run it first created (409 when
    it was used for a different question). A job queue that cannot be reached is a 503 with Retry-After.
    """
    key = idempotency_key_of(request)
    collection = owned(Collection.objects.filter(owner=request.user), body.collection_id, "collection")

    def start() -> tuple[Run, bool]:
        scope = runs.check_request(collection, body.question, body.documents)
        return runs.start_run(
            request.user, collection, body.question, system=body.system, task=body.task,
            config=user_config(body.searcher, scope, body.options), idempotency_key=key,
        )  # fmt: skip

    run = start_or_refuse(start, lambda r: (r.collection_id, r.question) == (collection.pk, body.question.strip()))
    return run if isinstance(run, HttpResponse) else Status(201, run_out(run))


@router.post(
    "/runs/{run_id}/follow-up",
    response={201: schemas.RunOut, 400: schemas.Error, 409: schemas.Error, 503: schemas.Error, **UNSAFE},
    tags=["runs"],
)
def follow_up(request: HttpRequest, run_id: int, body: schemas.FollowUpIn):
    """Ask a follow-up to one of your runs: the same collection, documents, system and task, with the thread so
    far (its questions and short answers) passed to the planner. `Idempotency-Key` works as for POST /runs."""
    parent = my_run(request, run_id)
    key = idempotency_key_of(request)
    options = body.options.model_dump(exclude_none=True) if body.options else None
    run = start_or_refuse(
        lambda: runs.start_follow_up(request.user, parent, body.question, options, key),
        lambda r: (r.follows_id, r.question) == (parent.pk, body.question.strip()),
    )
    return run if isinstance(run, HttpResponse) else Status(201, run_out(run))


@router.get("/runs", response={200: schemas.RunPage, **ERRORS}, tags=["runs"])
def list_runs(
    request: HttpRequest,
    limit: int = LIMIT,
    offset: int = OFFSET,
    status: schemas.RunStatus | None = None,
    collection_id: int | None = Query(None, **ID),
):
    """List your runs, newest first (filter by status or collection)."""
    rows = Run.objects.filter(owner=request.user).order_by("-created_at", "-id")
    if status:
        rows = rows.filter(status=status)
    if collection_id:
        rows = rows.filter(collection_id=collection_id)
    page = common.paged(rows, limit, offset)
    page["items"] = [run_out(r) for r in page["items"]]
    return page


@router.get("/runs/{run_id}", response={200: schemas.RunOut, **ERRORS}, tags=["runs"])
def get_run(request: HttpRequest, run_id: int):
    """Return a run: status, spend, calls, timings, last event seq."""
    return run_out(my_run(request, run_id))


@router.post("/runs/{run_id}/cancel", response={200: schemas.RunOut, 409: schemas.Error, **UNSAFE}, tags=["runs"])
def cancel(request: HttpRequest, run_id: int):
    """Cancel a queued or running run (409 when it has already ended)."""
    run = my_run(request, run_id)
    if not runs.cancel_run(run):
        raise HttpError(409, f"The run has already ended ({run.status}).")
    run.refresh_from_db()
    return run_out(run)


@router.get("/runs/{run_id}/events", response={200: schemas.EventsOut, **ERRORS}, tags=["runs"])
def run_events(
    request: HttpRequest, run_id: int, after: int = Query(0, ge=0, le=10**9), limit: int = Query(500, ge=1, le=1000)
):
    """Return the run's events with seq > after, in order (poll with the last seq you saw)."""
    run = my_run(request, run_id)
    rows = streams.events_after(run.pk, after, limit)
    return {
        "run_id": run.pk,
        "status": run.status,
        "finished": run.is_finished,
        "last_seq": run.last_seq,
        "events": [{"seq": e.seq, "kind": e.kind, "payload": e.payload, "created_at": e.created_at} for e in rows],
    }


# One server-sent event of the stream (OpenAPI 3.2's `itemSchema` for text/event-stream): `data` is JSON, a run
# event as /events returns it, or the last `end` event's final status.
STREAM_END = {
    "type": "object",
    "required": ["status", "last_seq"],
    "properties": {"status": {"type": "string"}, "last_seq": {"type": "integer"}},
}
STREAM_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "id": {"type": "string", "description": "the event's seq: resume after it with Last-Event-ID"},
        "event": {"type": "string", "description": "the event's kind, or `end`"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"oneOf": [{"$ref": "#/components/schemas/EventOut"}, STREAM_END]},
        },
        "retry": {"type": "integer", "description": "reconnect delay in ms (first message only)"},
    },
}
STREAM_DOC = {
    "responses": {
        "200": {
            "description": "Server-sent events: `id` is the seq, `event` the kind, `data` the event as JSON "
            "(EventOut); a last `end` event carries the final status. A `: keep-alive` comment comes every 15 s.",
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string", "description": "the raw event stream"},
                    "itemSchema": STREAM_EVENT,
                }
            },
        }
    }
}


@router.get("/runs/{run_id}/stream", response={204: None, **ERRORS}, openapi_extra=STREAM_DOC, tags=["runs"])
async def stream_run(request: HttpRequest, run_id: int, after: int = Query(0, ge=0, le=10**9)):
    """Stream the run's events as server-sent events, resuming after Last-Event-ID or ?after=."""
    run = None
    if 0 < run_id <= schemas.MAX_ID:
        run = await Run.objects.filter(pk=run_id, owner_id=request.auth.pk).only("pk", "status", "last_seq").afirst()
    if run is None:
        raise not_found("run")
    start = resume_point(request.headers.get("Last-Event-ID"), after)
    if run.is_finished and start >= run.last_seq:
        return HttpResponse(status=204)  # tells EventSource to stop reconnecting
    release = streams.reserve(request.auth.pk)
    if release is None:
        response = JsonResponse({"detail": streams.TOO_MANY.format(n=streams.max_streams_per_user())}, status=429)
        response["Retry-After"] = str(streams.RETRY_AFTER_S)
        return response
    # The key and run lookups used this request's thread connection: free it now, not when the stream ends.
    await sync_to_async(close_old_connections)()
    return streams.sse_response(json_events(run.pk, start), release)


@router.get("/runs/{run_id}/answer", response={200: schemas.AnswerOut, **ERRORS}, tags=["runs"])
def run_answer(request: HttpRequest, run_id: int):
    """Return the run's answer with each citation's exact span (docid, offsets, quote, page)."""
    run = my_run(request, run_id)
    stored = StoredAnswer.of(run)
    citations = run.citations.select_related("span__document").order_by("answer_part", "id")
    return {
        "run_id": run.pk,
        "status": run.status,
        "finished": run.is_finished,
        "explanation": stored.explanation,
        "exact_answer": stored.exact_answer,
        "confidence": stored.confidence,
        "outcome": stored.outcome,
        "highlight": list(stored.highlight) if stored.highlight else None,
        "answer": stored.data,
        "citations": [{"answer_part": c.answer_part, "marker": c.marker, "span": span_out(c.span)} for c in citations],
    }


EXPORT_DOC = {
    "responses": {
        "200": {
            "description": "The export as a file: `markdown` is the answer with numbered citations, each quote "
            "with its document, page and a link to the audit; `bibtex` and `csl-json` list the cited papers.",
            "content": {
                media_type.split(";")[0]: {"schema": {"type": "string"}}
                for media_type, _ in (FORMATS["markdown"], FORMATS["bibtex"])
            }
            | {FORMATS["csl-json"][0].split(";")[0]: {"schema": {"type": "array", "items": {"type": "object"}}}},
        }
    }
}


@router.get("/runs/{run_id}/export", response={**ERRORS}, openapi_extra=EXPORT_DOC, tags=["runs"])
def export_run(request: HttpRequest, run_id: int, format: schemas.ExportFormat = "markdown"):
    """Download the run's answer as Markdown, or the papers it cites as BibTeX or CSL-JSON."""
    return export_response(my_run(request, run_id), format, request.build_absolute_uri)


@router.get("/runs/{run_id}/spans", response={200: schemas.SpanPage, **ERRORS}, tags=["runs"])
def run_spans(request: HttpRequest, run_id: int, limit: int = LIMIT, offset: int = OFFSET):
    """List the evidence spans a run found (delivered to the planner or not)."""
    run = my_run(request, run_id)
    page = common.paged(run.spans.select_related("document").order_by("id"), limit, offset)
    page["items"] = [span_out(s) for s in page["items"]]
    return page


@router.get("/compare", response={200: schemas.CompareOut, **ERRORS}, tags=["runs"])
def compare(request: HttpRequest, a: int = Query(..., **ID), b: int = Query(..., **ID)):
    """Compare two of your runs: citations shared / only A / only B, funnels, cost, time and calls."""
    return compare_runs(my_run(request, a), my_run(request, b))
