"""Thin Celery entry points: each takes primary keys and calls a plain function."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import transaction

from . import events
from .ingest import jobs


@shared_task(name="evidence.record_event")
def record_event(run_id: int, kind: str, payload: dict[str, Any]) -> int:
    """Append an event to a run's stream from a worker; returns its seq."""
    return events.emit(run_id, kind, payload).seq


@shared_task(name="evidence.ingest_file", acks_late=True)
def ingest_file(file_id: int) -> str | None:
    """Parse, embed and index one uploaded file; a repeated delivery of the same file is a no-op."""
    record = jobs.process_file(file_id)
    return record.status if record else None


def enqueue_ingest(job_id: int) -> None:
    """Queue one task per pending file once the job's rows are committed (files run in parallel)."""
    from .models import IngestJob

    job = IngestJob.objects.get(pk=job_id)
    for file_id in jobs.pending_file_ids(job):
        transaction.on_commit(lambda file_id=file_id: ingest_file.delay(file_id))


@shared_task(name="evidence.run_research", acks_late=True)
def run_research(run_id: int) -> str | None:
    """Run a research run to its end status; a repeated delivery of a claimed run is a no-op."""
    from .agent.loop import execute_run

    run = execute_run(run_id)
    return run.status if run else None
