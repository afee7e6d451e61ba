"""Collections: create one, upload many files or a zip, watch per-file progress, browse documents."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_POST

from .. import pdfpages
from ..document_search import MAX_MATCHES, MAX_QUERY_CHARS, find_matches
from ..forms import CollectionForm
from ..ingest import ACCEPTED_FORMATS, file_note, jobs, library_report, readiness
from ..models import Citation, Collection, Document, IngestFile, IngestJob, SourceFile
from ..services import uploads


def collections(request: HttpRequest) -> HttpResponse:
    form = CollectionForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        collection = form.save()
        messages.success(request, f"Collection “{collection.name}” created: upload documents into it.")
        return redirect("collection", pk=collection.pk)
    rows = Collection.objects.filter(owner=request.user).annotate(n_documents=Count("documents")).order_by("name")
    return render(
        request, "evidence/collections.html", {"collections": rows, "form": form}, status=400 if form.errors else 200
    )


def max_upload_mb() -> int:
    return settings.EVIDENCE_MAX_UPLOAD_BYTES // (1024 * 1024)


@require_GET
def collection(request: HttpRequest, pk: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=pk, owner=request.user)
    documents = (
        collection.documents.annotate(n_passages=Count("passages"))
        .order_by("title")
        .only("pk", "docid", "title", "source_name", "source_format", "pages")
    )
    readiness = readiness_view(collection.pk)
    if request.htmx and request.GET.get("part") == "readiness":
        return render(request, "evidence/collection.html#readiness", {"collection": collection, **readiness})
    page = Paginator(documents, 50).get_page(request.GET.get("page"))
    jobs = collection.ingest_jobs.order_by("-created_at")[:5]
    return render(
        request,
        "evidence/collection.html",
        {
            **readiness,
            "collection": collection,
            "page": page,
            "jobs": jobs,
            "max_upload_mb": max_upload_mb(),
            "max_file_mb": settings.EVIDENCE_MAX_FILE_BYTES // (1024 * 1024),
            "accepted_formats": ACCEPTED_FORMATS,
        },
    )


def readiness_view(collection_id: int) -> dict[str, object]:
    """How far the collection's papers are prepared for reading (their sentences' vectors), for the page."""
    ready, total = readiness(collection_id)
    return {"ready": ready, "ready_total": total, "ready_pct": _pct(ready, total), "is_ready": ready >= total}


# CSRF is checked in _accept_upload instead of the middleware: the middleware parses the multipart body to
# find the token, and the size check must come before anything reads the body.
@csrf_exempt
@require_POST
def upload(request: HttpRequest, pk: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=pk, owner=request.user)
    limit = settings.EVIDENCE_MAX_UPLOAD_BYTES
    length = request.META.get("CONTENT_LENGTH") or ""
    if not length.isdecimal() or int(length) > limit:
        reason = (
            "The upload is larger than the limit of "
            f"{max_upload_mb()} MB per request: send fewer files at once or zip them in parts."
            if length.isdecimal()
            else "The upload has no Content-Length: send it from the upload form."
        )
        status = 413 if length.isdecimal() else 411
        return render(
            request, "evidence/upload_refused.html", {"collection": collection, "reason": reason}, status=status
        )
    return _accept_upload(request, collection)


@csrf_protect
def _accept_upload(request: HttpRequest, collection: Collection) -> HttpResponse:
    files = request.FILES.getlist("files")
    if not files:
        messages.error(request, f"Choose or drop at least one file ({ACCEPTED_FORMATS}).")
        return redirect("collection", pk=collection.pk)
    job = uploads.start_upload(collection, [(f.name, f) for f in files])
    return redirect("job", pk=job.pk)


@require_GET
def job(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(IngestJob.objects.select_related("collection"), pk=pk, owner=request.user)
    context = {
        "job": job,
        "files": file_rows(job),
        "done": job.status in IngestJob.FINISHED,
        "files_pct": _pct(job.files_done, job.files_total),
        "passages_pct": _pct(job.passages_embedded, job.passages_total),
        "libraries": library_report(job),
    }
    if request.htmx:
        return render(request, "evidence/job.html#progress", context)
    return render(request, "evidence/job.html", context)


def file_rows(job: IngestJob) -> list[IngestFile]:
    """The job's files in upload order, each zip followed by its members (each member a row of its own)."""
    files = list(job.files.all())
    members: dict[int, list[IngestFile]] = {}
    names = {f.pk: f.name for f in files}
    for f in files:
        if f.archive_id:
            members.setdefault(f.archive_id, []).append(f)
            f.archive_name = names.get(f.archive_id, "")
            f.member_name = f.name.removeprefix(f"{f.archive_name}/")  # the row sits under its zip already
    rows: list[IngestFile] = []
    for f in files:
        f.note = file_note(f)
        if not f.archive_id:
            f.member_count = len(members.get(f.pk, []))
            rows.extend([f, *members.get(f.pk, [])])
    return rows


@require_POST
def retry_file(request: HttpRequest, pk: int, file_pk: int) -> HttpResponse:
    record = get_object_or_404(IngestFile, pk=file_pk, job_id=pk, job__owner=request.user)
    if uploads.retry_file(record):
        messages.success(request, f"{record.name} is queued again.")
    else:
        messages.error(request, f"{record.name} {jobs.RETRY_REFUSED}.")
    return redirect("job", pk=pk)


def _pct(done: int, total: int) -> int:
    return int(100 * done / total) if total else 0


@require_GET
def document(request: HttpRequest, pk: int) -> HttpResponse:
    """A document: its pages (PDF) with search inside it boxed on the page, the spans your runs cited, its text."""
    document = get_object_or_404(Document.objects.select_related("collection"), pk=pk, collection__owner=request.user)
    passages = [
        (p, document.text[p.start : p.end])
        for p in document.passages.order_by("ordinal").only("pk", "ordinal", "start", "end")
    ]
    regions = dict(document.regions.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    query = " ".join(request.GET.get("q", "").split())[:MAX_QUERY_CHARS]
    matches = find_matches(document.text, query, document.page_at) if query else []
    context = {
        "document": document,
        "passages": passages,
        "regions": regions,
        "query": query,
        "matches": [(m, passage_at(passages, m.start)) for m in matches],
        "more_matches": len(matches) >= MAX_MATCHES,
        "cited": Citation.objects.filter(span__document=document, run__owner=request.user)
        .select_related("run", "span")
        .order_by("-run__created_at", "id")[:50],
        **document_page(document, request.GET.get("page", ""), matches),
    }
    return render(request, "evidence/document.html", context)


def passage_at(passages: list, offset: int) -> int | None:
    """The ordinal of the passage holding an offset (the link target of a match in a document without pages)."""
    return next((p.ordinal for p, _body in passages if p.start <= offset < p.end), None)


def document_page(document: Document, asked: str, matches: list) -> dict:
    """The PDF page to show (the one asked for, else the first match's, else the first) with the matches boxed."""
    total = len(document.pages)
    if document.source_format != "pdf" or not total:
        return {"page_total": 0}
    source = SourceFile.objects.filter(document=document).first()
    if source is None or not source.char_map:
        return {"page_total": total, "page_missing": True}
    first_hit = next((m.page for m in matches if m.page), None)
    number = int(asked) if asked.isdecimal() and 1 <= int(asked) <= total else first_hit or 1
    on_page = [(m.start, m.end) for m in matches if m.page == number]
    boxes = pdfpages.ranges_on_page(document, source, number, on_page)
    return {"page_total": total, "page": boxes, "page_matches": len(on_page)}
