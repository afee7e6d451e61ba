"""Ingestion jobs: save uploads, then parse, chunk, embed and index each file with progress recorded."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Count, F, Sum
from django.utils import timezone

from ..models import Collection, Document, IngestFile, IngestFileData, IngestJob
from ..streams import beating
from .library_import import apply_libraries, read_libraries, tie_duplicate
from .parsers import expand_upload
from .parsers.archive import is_zip
from .store import store_documents
from .timelimit import parse_with_limits
from .types import IngestError, Limits

log = logging.getLogger(__name__)


def limits() -> Limits:
    return Limits(max_file_bytes=settings.EVIDENCE_MAX_FILE_BYTES)


def create_job(collection: Collection, uploads: Iterable[tuple[str, BinaryIO | bytes]]) -> IngestJob:
    """Save each upload to disk and record it; files over the size limit fail here, before any parsing."""
    job = IngestJob.objects.create(owner=collection.owner, collection=collection)
    for name, content in uploads:
        record = IngestFile.objects.create(job=job, name=name[:500])
        target = _upload_path(record)
        size = _save_capped(content, target, settings.EVIDENCE_MAX_FILE_BYTES)
        if size is None:
            target.unlink(missing_ok=True)
            record.status, record.retryable = IngestFile.Status.FAILED, False
            record.error = (
                f"{name} is larger than the limit of {settings.EVIDENCE_MAX_FILE_BYTES // (1024 * 1024)} MB per "
                "file: split it or upload a smaller copy."
            )
            record.save()
            continue
        record.size = size
        # The bytes go to Postgres, not this machine's disk: the worker that takes the file may run elsewhere.
        IngestFileData.objects.create(file=record, data=target.read_bytes())
        target.unlink(missing_ok=True)
        record.stored_path = IN_POSTGRES
        record.save()
    read_libraries(list(job.files.all()))
    refresh_job(job.pk)
    job.refresh_from_db()
    return job


def _upload_path(record: IngestFile) -> Path:
    folder = Path(settings.EVIDENCE_UPLOAD_DIR) / str(record.job_id)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{record.pk}.upload"


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


def process_all(
    job: IngestJob,
    embed: bool = True,
    on_file: Callable[[IngestFile], None] | None = None,
    files_at_once: int = 1,
) -> None:
    """Ingest every queued file of a job here, in this process, members of unpacked zips included.

    `files_at_once` > 1 ingests that many files at a time in threads of this process (each with its own database
    connection): one file's parsing, storing and indexing (Python, one core) overlap another's embedding. Inside a
    transaction (where other connections would not see the job) files go one at a time.
    """
    from django.db import connection

    if files_at_once <= 1 or connection.in_atomic_block:
        while pending := pending_file_ids(job):
            for file_id in pending:
                _after_file(process_file(file_id, embed=embed), on_file)
        return
    with ThreadPoolExecutor(files_at_once, thread_name_prefix="ingest") as pool:
        while pending := pending_file_ids(job):
            for record in pool.map(lambda file_id: _in_thread(process_file, file_id, embed=embed), pending):
                _after_file(record, on_file)


def _after_file(record: IngestFile | None, on_file: Callable[[IngestFile], None] | None) -> None:
    if record is not None and on_file is not None:
        on_file(record)


def _in_thread(function: Callable, *args, **kwargs):
    """Call `function` in a pool thread, closing the thread's database connection after."""
    from django.db import connection

    try:
        return function(*args, **kwargs)
    finally:
        connection.close()


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
        record.attempts += 1
        record.save(update_fields=["status", "attempts", "updated_at"])
        if record.job.status == IngestJob.Status.QUEUED:
            IngestJob.objects.filter(pk=record.job_id).update(status=IngestJob.Status.RUNNING)
    return record


def process_file(file_id: int, embed: bool = True, resume: bool = False) -> IngestFile | None:
    """Parse, store and index one uploaded file (or unpack a zip into member files); errors end up on the file.

    Database outages are raised, so the task retries once the database is back.
    """
    record = claim_file(file_id, resume)
    if record is None:
        return None
    with heartbeat(record.pk):
        _process_claimed(record, embed)
    refresh_job(record.job_id)
    return record


def heartbeat(file_id: int) -> AbstractContextManager[None]:
    """Move the file's updated_at every few seconds while this process works on it (the reaper's liveness sign).

    A long parse or embedding reports no progress for minutes; a thread beats for it, and stops with the process.
    """
    return beating(
        f"file-{file_id}-heartbeat",
        lambda: IngestFile.objects.filter(pk=file_id).update(updated_at=timezone.now()),
        file_beat_every_s(),
    )


def file_beat_every_s() -> float:
    """How often a worker beats for the file it holds: often enough that a few missed beats tell a stranded file
    (its worker gone) from a busy one long before the stale window ends the file's claim."""
    stale_after_s = float(settings.EVIDENCE_FILE_STALE_AFTER_S)
    return max(0.5, min(15.0, stale_after_s / 4))


def _process_claimed(record: IngestFile, embed: bool) -> None:
    try:
        data = _stored_bytes(record)
        if is_zip(record.name, data):
            _unpack(record, data)
        else:
            _ingest(record, data, embed)
    except IngestError as error:
        record.status, record.error = IngestFile.Status.FAILED, str(error)
        record.retryable = error.retryable
    except FileNotFoundError:
        record.status, record.retryable = IngestFile.Status.FAILED, False
        record.error = f"{record.name} is no longer stored on the server: upload it again."
    except (OperationalError, InterfaceError):
        raise  # the database went away: the task retries once it is back (recording anything now would fail too)
    except Exception:  # a file must end in a defined state whatever went wrong
        log.exception("ingesting %s failed", record.name)
        record.status, record.retryable = IngestFile.Status.FAILED, True
        record.error = (
            f"{record.name} could not be ingested because of an internal error (it is logged on the server): "
            "retry it, and if it fails again, report it."
        )
    record.save()


def _unpack(record: IngestFile, data: bytes) -> None:
    """Turn a zip's row into one queued row per member, each with its own stored bytes, progress and error."""
    members = expand_upload(record.name, data, limits())
    if not members:
        raise IngestError(record.name, "holds no files to ingest: check that it is the archive you meant")
    with transaction.atomic():
        created = []
        for name, content in members:
            member = IngestFile.objects.create(job_id=record.job_id, archive=record, name=name[:500], size=len(content))
            IngestFileData.objects.create(file=member, data=content)
            member.stored_path = IN_POSTGRES
            member.save(update_fields=["stored_path"])
            created.append(member)
        read_libraries(created)  # before any member is queued to a worker: each finds its library entry
        record.status = IngestFile.Status.UNPACKED  # committed with the members: a retried task never unpacks twice
        record.save(update_fields=["status", "updated_at"])
        IngestFileData.objects.filter(file=record).delete()  # each member keeps its own bytes; the zip is not needed
    if record.stored_path and record.stored_path != IN_POSTGRES:
        Path(record.stored_path).unlink(missing_ok=True)


# stored_path of a file whose bytes are in IngestFileData (older rows name a file on the web machine's disk).
IN_POSTGRES = "postgres"


def _stored_bytes(record: IngestFile) -> bytes:
    """Return a file's uploaded bytes from Postgres (or from the disk of a file saved before they moved there)."""
    if record.stored_path == IN_POSTGRES:
        stored = IngestFileData.objects.filter(file=record).values_list("data", flat=True).first()
        if stored is None:
            raise FileNotFoundError(record.name)
        return bytes(stored)
    if not record.stored_path:
        raise FileNotFoundError(record.name)
    return Path(record.stored_path).read_bytes()


def _ingest(record: IngestFile, data: bytes, embed: bool) -> None:
    job = record.job
    documents = parse_with_limits(record.name, data, limits())
    apply_libraries(record, documents)
    embedder = _embedder() if embed else None

    def progress(_documents: int, passages: int) -> None:
        IngestJob.objects.filter(pk=job.pk).update(
            passages_embedded=F("passages_embedded") + (passages if embed else 0),
            passages_total=F("passages_total") + passages,
        )

    record.status = IngestFile.Status.EMBEDDING
    record.save(update_fields=["status", "updated_at"])
    result = store_documents(job.collection, record.name, documents, embedder, progress)
    if not result.documents:
        tie_duplicate(job.collection_id, documents)  # a paper already stored still takes its library entry
    # A worker lost between storing and indexing left documents the index lacks: a later attempt adds them too
    # (add_documents skips what the index already holds).
    stored = Document.objects.filter(collection_id=job.collection_id, source_name=record.name).values_list("pk")
    if to_index := sorted({*result.documents, *(pk for (pk,) in stored)}):
        from ..retrieval import add_documents

        add_documents(job.collection_id, to_index)
    record.documents_added = len(result.documents)
    record.duplicates = result.duplicates
    record.passages = result.passages
    record.error = ""
    record.status = IngestFile.Status.DONE


RETRY_REFUSED = (
    "cannot be retried: only a failed file that is still stored, and failed in a way another try can mend (a time "
    "limit, a lost worker), can be; fix the file and upload it again"
)


def retry_file(record: IngestFile) -> bool:
    """Queue a failed file again (its stored bytes are kept); False when it cannot be retried: not failed, not
    stored, or failed in a way the same bytes always will (empty, damaged, unsupported)."""
    if record.stored_path == IN_POSTGRES:
        stored = IngestFileData.objects.filter(file=record).exists()
    else:
        stored = bool(record.stored_path) and Path(record.stored_path).exists()
    if record.status != IngestFile.Status.FAILED or not stored or not record.retryable:
        return False
    with transaction.atomic():
        updated = IngestFile.objects.filter(pk=record.pk, status=IngestFile.Status.FAILED).update(
            status=IngestFile.Status.QUEUED, error="", attempts=0, sends=0, sent_at=timezone.now()
        )
        if updated:
            refresh_job(record.job_id)
    return bool(updated)


def refresh_job(job_id: int) -> None:
    """Roll a job's counts and status up from its files: done, partial (some failed) or failed (all failed).

    Each file's task calls this after committing its own end state. The job row is locked while its files are
    counted, so two files ending at once roll up in turn and the later count, which sees both, is written last.
    """
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None:
            return
        counts = dict(
            IngestFile.objects.filter(job_id=job_id)
            .exclude(status=IngestFile.Status.UNPACKED)
            .values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        total = sum(counts.values())
        failed = counts.get(IngestFile.Status.FAILED, 0)
        done = counts.get(IngestFile.Status.DONE, 0)
        files = IngestFile.objects.filter(job_id=job_id, status=IngestFile.Status.DONE)
        job.files_total, job.files_done, job.files_failed = total, done + failed, failed
        job.documents_added = files.aggregate(documents=Sum("documents_added"))["documents"] or 0
        job.duplicates = sum(len(d or []) for d in files.values_list("duplicates", flat=True))
        if total and done + failed == total:
            status = IngestJob.Status.PARTIAL if failed else IngestJob.Status.DONE
            status = status if done else IngestJob.Status.FAILED
            if job.status != status or job.finished_at is None:
                job.status, job.finished_at = status, timezone.now()
        else:
            if total - counts.get(IngestFile.Status.QUEUED, 0) or job.status in IngestJob.FINISHED:
                job.status = IngestJob.Status.RUNNING  # started, or finished and now retrying a file
            job.finished_at = None
        # Not the passage counters: files still embedding move those without this lock.
        job.save(
            update_fields=[
                "files_total",
                "files_done",
                "files_failed",
                "documents_added",
                "duplicates",
                "status",
                "finished_at",
            ]
        )


def _embedder():
    from ..encode import get_embedder

    return get_embedder().embed


def documents_of(record: IngestFile) -> list[int]:
    """The documents a file added to its collection (those it stored, not its duplicates)."""
    collection_id = IngestJob.objects.filter(pk=record.job_id).values_list("collection_id", flat=True).first()
    stored = Document.objects.filter(collection_id=collection_id, source_name=record.name)
    return list(stored.values_list("pk", flat=True))


def job_summary(job: IngestJob) -> dict[str, object]:
    """Summarise a job as the CLI and the API report it."""
    job.refresh_from_db()
    files = list(job.files.exclude(status=IngestFile.Status.UNPACKED))
    return {
        "collection": job.collection.name,
        "files": len(files),
        "documents": sum(f.documents_added for f in files),
        "passages": sum(f.passages for f in files),
        "skipped_duplicates": sum(len(f.duplicates) for f in files),
        "failed": sum(f.status == IngestFile.Status.FAILED for f in files),
        "errors": [{"file": f.name, "reason": f.error} for f in files if f.error],
        "status": job.status,
    }
