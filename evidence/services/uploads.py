"""Uploads: the one way in (like `runs.start_run`): files become a job, each file is queued once committed, and a
failed file is retried from its stored bytes.

With the broker down the files stay queued, and the reaper queues them again once it is back: the upload is
accepted either way.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.db import transaction

from ..ingest import jobs
from ..models import Collection, IngestFile, IngestJob
from .queueing import INGEST_TASK, send

log = logging.getLogger(__name__)


def start_upload(collection: Collection, files: Iterable[tuple[str, Any]]) -> IngestJob:
    """Store `files` (name, bytes or file) as a job of `collection` and queue each of its files for a worker."""
    with transaction.atomic():
        job = jobs.create_job(collection, list(files))
        queue_files(jobs.pending_file_ids(job))
    return job


def retry_file(record: IngestFile) -> bool:
    """Queue a failed file again from its stored bytes; False when it cannot be retried (see jobs.retry_file)."""
    with transaction.atomic():
        if not jobs.retry_file(record):
            return False
        queue_files([record.pk])
    return True


def queue_files(file_ids: list[int]) -> None:
    """Queue one task per file once the rows are committed (files run in parallel)."""
    for file_id in file_ids:
        transaction.on_commit(lambda file_id=file_id: send_ingest(file_id))


def send_ingest(file_id: int) -> None:
    try:
        send(INGEST_TASK, (file_id,))
    except Exception:  # kombu raises OperationalError or a socket error, depending on where the broker failed
        log.warning("could not queue file %s: the reaper will queue it again", file_id)
