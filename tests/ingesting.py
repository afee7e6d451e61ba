"""Ingest files into a collection in the test process (no worker): the setup many tests share."""

from __future__ import annotations

from collections.abc import Sequence

from evidence.ingest import jobs
from evidence.models import Collection, IngestJob


def ingest_now(collection: Collection, files: Sequence[tuple[str, bytes]], embed: bool = True) -> IngestJob:
    """Create an ingest job for the files and process each one here; return the job."""
    job = jobs.create_job(collection, list(files))
    jobs.process_all(job, embed=embed)
    return job
