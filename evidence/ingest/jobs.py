"""Ingestion jobs: save uploads, then parse, chunk, embed and index each file with progress recorded."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from ..models import Collection, IngestFile, IngestJob
from .parsers import expand_upload
from .store import store_documents
from .timelimit import parse_with_limits
from .types import IngestError, Limits

log = logging.getLogger(__name__)


def limits() -> Limits:
    return Limits(max_file_bytes=settings.EVIDENCE_MAX_FILE_BYTES)


def create_job(collection: Collection, uploads: Iterable[tuple[str, BinaryIO | bytes]]) -> IngestJob:
    """Save each upload to disk and record it; files over the size limit fail here, before any parsing."""
    job = IngestJob.objects.create(owner=collection.owner, collection=collection)
    folder = Path(settings.EVIDENCE_UPLOAD_DIR) / str(job.pk)
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, content in uploads:
        count += 1
        record = IngestFile.objects.create(job=job, name=name[:500])
        target = folder / f"{record.pk}.upload"
        size = _save_capped(content, target, settings.EVIDENCE_MAX_FILE_BYTES)
        if size is None:
            target.unlink(missing_ok=True)
            record.status = IngestFile.Status.FAILED
            record.error = (
                f"Cannot ingest {name}: the file is larger than the limit of "
                f"{settings.EVIDENCE_MAX_FILE_BYTES // (1024 * 1024)} MB."
            )
            record.save()
            continue
        record.size = size
        record.stored_path = str(target)
        record.save()
    already_failed = job.files.filter(status=IngestFile.Status.FAILED).count()
    IngestJob.objects.filter(pk=job.pk).update(files_total=count, files_done=already_failed)
    job.refresh_from_db()
    _finish_if_complete(job.pk)
    return job


def _save_capped(content: BinaryIO | bytes, target: Path, cap: int) -> int | None:
    """Copy content to target in chunks; return its size, or None as soon as it passes the cap."""
    size = 0
    with target.open("wb") as out:
        if isinstance(content, bytes | bytearray):
            if len(content) > cap:
                return None
            out.write(content)
            return len(content)
        while chunk := content.read(1024 * 1024):
            size += len(chunk)
            if size > cap:
                return None
            out.write(chunk)
    return size


def pending_file_ids(job: IngestJob) -> list[int]:
    return list(job.files.filter(status=IngestFile.Status.QUEUED).values_list("pk", flat=True))


def claim_file(file_id: int, resume: bool = False) -> IngestFile | None:
    """Move a queued file to parsing; a file already claimed (a repeated task) gives None.

    `resume` (a retry of the task that claimed it) also takes back a file that try left parsing or embedding.
    """
    claimable = {IngestFile.Status.QUEUED}
    if resume:
        claimable |= {IngestFile.Status.PARSING, IngestFile.Status.EMBEDDING}
    with transaction.atomic():
        record = IngestFile.objects.select_for_update().select_related("job").filter(pk=file_id).first()
        if record is None or record.status not in claimable:
            return None
        record.status = IngestFile.Status.PARSING
        record.save(update_fields=["status", "updated_at"])
        if record.job.status == IngestJob.Status.QUEUED:
            IngestJob.objects.filter(pk=record.job_id).update(status=IngestJob.Status.RUNNING)
    return record


def process_file(file_id: int, embed: bool = True, resume: bool = False) -> IngestFile | None:
    """Parse, store and index one uploaded file; errors are recorded on the file, database outages raised."""
    record = claim_file(file_id, resume)
    if record is None:
        return None
    job = record.job
    try:
        data = Path(record.stored_path).read_bytes()
        documents = []
        errors: list[str] = []
        for member_name, member_data in expand_upload(record.name, data, limits()):
            try:
                documents.append((member_name, parse_with_limits(member_name, member_data, limits())))
            except IngestError as error:
                errors.append(str(error))
        total_passages = 0
        embedder = _embedder() if embed else None

        def progress(_documents: int, passages: int) -> None:
            IngestJob.objects.filter(pk=job.pk).update(
                passages_embedded=F("passages_embedded") + (passages if embed else 0),
                passages_total=F("passages_total") + passages,
            )

        record.status = IngestFile.Status.EMBEDDING
        record.save(update_fields=["status", "updated_at"])
        added: list[int] = []
        for member_name, parsed in documents:
            result = store_documents(job.collection, member_name, parsed, embedder, progress)
            added.extend(result.documents)
            record.duplicates = [*record.duplicates, *result.duplicates]
            total_passages += result.passages
        if added:
            from ..retrieval.index_store import add_documents

            add_documents(job.collection_id, added)
        record.documents_added = len(added)
        record.passages = total_passages
        record.error = " ".join(errors)
        record.status = IngestFile.Status.FAILED if errors and not added else IngestFile.Status.DONE
    except IngestError as error:
        record.status, record.error = IngestFile.Status.FAILED, str(error)
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries once it is back (recording anything now would fail too)
    except Exception as error:  # a file must end in a defined state whatever went wrong
        log.exception("ingesting %s failed", record.name)
        record.status = IngestFile.Status.FAILED
        record.error = f"Cannot ingest {record.name}: an internal error occurred ({type(error).__name__}: {error})."
    record.save()
    IngestJob.objects.filter(pk=job.pk).update(
        files_done=F("files_done") + 1,
        documents_added=F("documents_added") + record.documents_added,
        duplicates=F("duplicates") + len(record.duplicates),
    )
    _finish_if_complete(job.pk)
    return record


def _finish_if_complete(job_id: int) -> None:
    IngestJob.objects.filter(pk=job_id, files_done__gte=F("files_total")).exclude(status=IngestJob.Status.DONE).update(
        status=IngestJob.Status.DONE, finished_at=timezone.now()
    )


def _embedder():
    from .embedding import get_embedder

    return get_embedder().embed


def job_summary(job: IngestJob) -> dict[str, object]:
    """Summarise a job as the CLI and the API report it."""
    job.refresh_from_db()
    files = list(job.files.all())
    return {
        "collection": job.collection.name,
        "files": len(files),
        "documents": sum(f.documents_added for f in files),
        "passages": sum(f.passages for f in files),
        "skipped_duplicates": sum(len(f.duplicates) for f in files),
        "errors": [{"file": f.name, "reason": f.error} for f in files if f.error],
        "status": job.status,
    }
