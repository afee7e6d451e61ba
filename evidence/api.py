"""The JSON API under /api/: thin endpoints over the same functions the pages use, every object by owner."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections, transaction
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from ninja import Query, Router, Status
from ninja.errors import HttpError

from . import broadcast, events, queueing, runs, schemas
from .agent.answer import answer_outcome
from .eval.compare_runs import compare as compare_runs
from .event_stream import json_events, resume_point
from .exports import FORMATS
from .ingest.jobs import RETRY_REFUSED, create_job, retry_file
from .ingest.library_import import file_note, library_report
from .models import Collection, Document, Evaluation, IngestFile, IngestJob, Run, Span
from .run_config import RunConfig, user_config
from .tasks import enqueue_files, enqueue_ingest
from .views.exports import export_response

log = logging.getLogger(__name__)
router = Router()

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


# ------------------------------------------------------------------ collections and uploads


def collection_out(c: Collection) -> dict[str, Any]:
    documents = c.n_documents if hasattr(c, "n_documents") else c.documents.count()
    return {
        "id": c.pk,
        "name": c.name,
        "description": c.description,
        "created_at": c.created_at,
        "documents": documents,
    }


@router.get("/collections", response={200: schemas.CollectionPage, **ERRORS}, tags=["collections"])
def list_collections(request: HttpRequest, limit: int = LIMIT, offset: int = OFFSET):
    """List your collections, by name."""
    rows = Collection.objects.filter(owner=request.user).annotate(n_documents=Count("documents")).order_by("name")
    page = paged(rows, limit, offset)
    page["items"] = [collection_out(c) for c in page["items"]]
    return page


@router.post("/collections", response={201: schemas.CollectionOut, 409: schemas.Error, **UNSAFE}, tags=["collections"])
def create_collection(request: HttpRequest, body: schemas.CollectionIn):
    """Create a collection (names are unique per user)."""
    name = body.name.strip()
    with transaction.atomic():
        if Collection.objects.filter(owner=request.user, name=name).exists():
            raise HttpError(409, "You already have a collection with this name.")
        collection = Collection.objects.create(owner=request.user, name=name, description=body.description)
    return Status(201, collection_out(collection))


@router.get("/collections/{collection_id}", response={200: schemas.CollectionOut, **ERRORS}, tags=["collections"])
def get_collection(request: HttpRequest, collection_id: int):
    """Return one of your collections."""
    return collection_out(owned(Collection.objects.filter(owner=request.user), collection_id, "collection"))


def upload_out(job: IngestJob) -> dict[str, Any]:
    fields = (
        "id",
        "collection_id",
        "status",
        "files_total",
        "files_done",
        "files_failed",
        "documents_added",
        "duplicates",
        "passages_total",
        "passages_embedded",
        "created_at",
        "finished_at",
    )
    return {
        **{f: getattr(job, f) for f in fields},
        "files": [
            {
                "id": f.pk,
                "name": f.name,
                "archive_id": f.archive_id,
                "size": f.size,
                "status": f.status,
                "error": f.error,
                "documents_added": f.documents_added,
                "passages": f.passages,
                "duplicates": list(f.duplicates or []),
                "retryable": f.status == IngestFile.Status.FAILED and f.retryable,
                "note": file_note(f),
            }
            for f in job.files.all()
        ],
        "libraries": library_report(job),
    }


UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {"type": "array", "minItems": 1, "items": {"type": "string", "format": "binary"}}
                    },
                    "additionalProperties": False,  # other fields are ignored; a NUL in any is refused (400)
                }
            }
        },
    }
}


@router.post(
    "/collections/{collection_id}/files",
    openapi_extra=UPLOAD_BODY,
    tags=["collections"],
    response={202: schemas.UploadOut, 400: schemas.Error, 413: schemas.Error, **UNSAFE},
)
def upload_files(request: HttpRequest, collection_id: int):
    """Upload files (multipart field `files`, many files or zips); parsing happens in the background.

    The request size is checked from Content-Length before the body is read (413 past the limit).
    """
    collection = owned(Collection.objects.filter(owner=request.user), collection_id, "collection")
    files = request.FILES.getlist("files")
    if not files:
        raise HttpError(400, "Send at least one file in the multipart field 'files'.")
    with transaction.atomic():
        job = create_job(collection, [(f.name or "upload", f) for f in files])
        enqueue_ingest(job.pk)
    return Status(202, upload_out(job))


@router.post(
    "/uploads/{upload_id}/files/{file_id}/retry",
    tags=["collections"],
    response={202: schemas.UploadOut, 409: schemas.Error, **UNSAFE},
)
def retry_upload_file(request: HttpRequest, upload_id: int, file_id: int):
    """Queue a failed file of an upload again (its stored bytes are kept); 409 if it has not failed."""
    job = owned(IngestJob.objects.filter(owner=request.user), upload_id, "upload")
    record = owned(job.files.all(), file_id, "file")
    with transaction.atomic():
        if not retry_file(record):
            raise HttpError(409, f"{record.name} {RETRY_REFUSED}.")
        enqueue_files([record.pk])
    job.refresh_from_db()
    return Status(202, upload_out(job))


@router.get("/uploads", response={200: schemas.UploadPage, **ERRORS}, tags=["collections"])
def list_uploads(request: HttpRequest, limit: int = LIMIT, offset: int = OFFSET):
    """List your uploads (ingestion jobs), newest first."""
    page = paged(IngestJob.objects.filter(owner=request.user).order_by("-created_at", "-id"), limit, offset)
    page["items"] = [upload_out(job) for job in page["items"]]
    return page


@router.get("/uploads/{upload_id}", response={200: schemas.UploadOut, **ERRORS}, tags=["collections"])
def get_upload(request: HttpRequest, upload_id: int):
    """Return an upload's ingestion progress, file by file."""
    return upload_out(owned(IngestJob.objects.filter(owner=request.user), upload_id, "upload"))


# ------------------------------------------------------------------ documents


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


def my_documents(request: HttpRequest) -> QuerySet:
    return Document.objects.filter(collection__owner=request.user)


@router.get(
    "/collections/{collection_id}/documents", response={200: schemas.DocumentPage, **ERRORS}, tags=["documents"]
)
def list_documents(request: HttpRequest, collection_id: int, limit: int = LIMIT, offset: int = OFFSET):
    """List a collection's documents."""
    collection = owned(Collection.objects.filter(owner=request.user), collection_id, "collection")
    page = paged(collection.documents.order_by("id"), limit, offset)
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
    page = paged(document.passages.order_by("ordinal").only("ordinal", "start", "end"), limit, offset)
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
    page = paged(rows, limit, offset)
    page["items"] = [span_out(s) for s in page["items"]]
    return page


# ------------------------------------------------------------------ runs


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
    page = paged(rows, limit, offset)
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
    rows = events.events_after(run.pk, after, limit)
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
    release = broadcast.reserve(request.auth.pk)
    if release is None:
        response = JsonResponse({"detail": broadcast.TOO_MANY.format(n=broadcast.max_streams_per_user())}, status=429)
        response["Retry-After"] = str(broadcast.RETRY_AFTER_S)
        return response
    # The key and run lookups used this request's thread connection: free it now, not when the stream ends.
    await sync_to_async(close_old_connections)()
    response = StreamingHttpResponse(json_events(run.pk, start), content_type="text/event-stream")
    response._resource_closers.append(release)  # Django closes the response when the stream ends or drops
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@router.get("/runs/{run_id}/answer", response={200: schemas.AnswerOut, **ERRORS}, tags=["runs"])
def run_answer(request: HttpRequest, run_id: int):
    """Return the run's answer with each citation's exact span (docid, offsets, quote, page)."""
    run = my_run(request, run_id)
    answer = run.answer or {}
    citations = run.citations.select_related("span__document").order_by("answer_part", "id")
    confidence = answer.get("confidence")
    return {
        "run_id": run.pk,
        "status": run.status,
        "finished": run.is_finished,
        "explanation": str(answer.get("explanation", "")),
        "exact_answer": str(answer.get("exact_answer", "")),
        "confidence": float(confidence) if isinstance(confidence, int | float) else None,
        "outcome": answer_outcome(run.status, answer),
        "highlight": answer.get("highlight") if answer.get("highlight") else None,
        "answer": answer,
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
    page = paged(run.spans.select_related("document").order_by("id"), limit, offset)
    page["items"] = [span_out(s) for s in page["items"]]
    return page


@router.get("/compare", response={200: schemas.CompareOut, **ERRORS}, tags=["runs"])
def compare(request: HttpRequest, a: int = Query(..., **ID), b: int = Query(..., **ID)):
    """Compare two of your runs: citations shared / only A / only B, funnels, cost, time and calls."""
    return compare_runs(my_run(request, a), my_run(request, b))


# ------------------------------------------------------------------ evaluations


def evaluation_out(e: Evaluation) -> dict[str, Any]:
    fields = ("id", "benchmark", "system", "collection_id", "config", "status", "summary", "created_at", "finished_at")
    return {f: getattr(e, f) for f in fields}


@router.get("/evaluations", response={200: schemas.EvaluationPage, **ERRORS}, tags=["evaluations"])
def list_evaluations(request: HttpRequest, limit: int = LIMIT, offset: int = OFFSET):
    """List your evaluations (run with `manage.py evaluate`), newest first."""
    page = paged(Evaluation.objects.filter(owner=request.user).order_by("-created_at", "-id"), limit, offset)
    page["items"] = [evaluation_out(e) for e in page["items"]]
    return page


@router.get("/evaluations/{evaluation_id}", response={200: schemas.EvaluationDetail, **ERRORS}, tags=["evaluations"])
def get_evaluation(request: HttpRequest, evaluation_id: int):
    """Return an evaluation's summary and per-question metrics."""
    evaluation = owned(Evaluation.objects.filter(owner=request.user), evaluation_id, "evaluation")
    items = [{"qid": i.qid, "run_id": i.run_id, "metrics": i.metrics} for i in evaluation.items.order_by("id")]
    return {**evaluation_out(evaluation), "items": items}
