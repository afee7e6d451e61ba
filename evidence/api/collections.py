"""Collections and uploads: create and list collections, upload files (parsed in the background), watch and
retry them."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest
from ninja import Router, Status
from ninja.errors import HttpError

from .. import schemas
from ..ingest import RETRY_REFUSED, file_note, library_report, readiness
from ..models import Collection, IngestFile, IngestJob
from ..services import uploads
from . import common
from .common import ERRORS, LIMIT, OFFSET, UNSAFE, owned

router = Router()


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
    page = common.paged(rows, limit, offset)
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
    """Return one of your collections, with how far its papers are prepared for reading."""
    collection = owned(Collection.objects.filter(owner=request.user), collection_id, "collection")
    ready, total = readiness(collection.pk)
    return {**collection_out(collection), "prepared": {"ready": ready, "total": total, "done": ready >= total}}


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
    job = uploads.start_upload(collection, [(f.name or "upload", f) for f in files])
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
    if not uploads.retry_file(record):
        raise HttpError(409, f"{record.name} {RETRY_REFUSED}.")
    job.refresh_from_db()
    return Status(202, upload_out(job))


@router.get("/uploads", response={200: schemas.UploadPage, **ERRORS}, tags=["collections"])
def list_uploads(request: HttpRequest, limit: int = LIMIT, offset: int = OFFSET):
    """List your uploads (ingestion jobs), newest first."""
    page = common.paged(IngestJob.objects.filter(owner=request.user).order_by("-created_at", "-id"), limit, offset)
    page["items"] = [upload_out(job) for job in page["items"]]
    return page


@router.get("/uploads/{upload_id}", response={200: schemas.UploadOut, **ERRORS}, tags=["collections"])
def get_upload(request: HttpRequest, upload_id: int):
    """Return an upload's ingestion progress, file by file."""
    return upload_out(owned(IngestJob.objects.filter(owner=request.user), upload_id, "upload"))
