"""Uploads: an ingest job, its files (one per zip member) and their stored bytes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .documents import Collection


class IngestJob(models.Model):
    """One upload batch: its files are parsed and indexed by Celery tasks that record progress here."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"  # every file ingested (duplicates included)
        PARTIAL = "partial"  # some files ingested, some failed
        FAILED = "failed"  # every file failed

    FINISHED = (Status.DONE, Status.PARTIAL, Status.FAILED)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ingest_jobs")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="ingest_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    files_total = models.PositiveIntegerField(default=0)
    files_done = models.PositiveIntegerField(default=0)  # files that ended, ingested or failed
    files_failed = models.PositiveIntegerField(default=0)
    documents_added = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    passages_total = models.PositiveIntegerField(default=0)
    passages_embedded = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class IngestFile(models.Model):
    """One uploaded file, or one member of an uploaded zip (then `archive` is the zip's row)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        PARSING = "parsing"
        EMBEDDING = "embedding"
        DONE = "done"
        FAILED = "failed"
        UNPACKED = "unpacked"  # a zip whose members became files of their own

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="files")
    archive = models.ForeignKey("self", on_delete=models.CASCADE, null=True, blank=True, related_name="members")
    name = models.CharField(max_length=500)
    size = models.PositiveBigIntegerField(default=0)
    stored_path = models.CharField(max_length=1000, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    # A failure another try can mend (a time limit, a lost worker, an internal error); False for a file that is
    # empty, damaged or in no supported format, which fails the same way every time.
    retryable = models.BooleanField(default=True)
    documents_added = models.PositiveIntegerField(default=0)
    duplicates = models.JSONField(default=list, blank=True)  # names of documents skipped as duplicates
    passages = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)  # claims by a worker; a lost worker's file is taken again
    sends = models.PositiveSmallIntegerField(default=0)  # times its task was queued (the reaper queues a lost one)
    sent_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)  # moved while it is parsed and embedded: its heartbeat
    # A library file (BibTeX, CSL-JSON): {"entries", "tied" (file name -> entry key), "unreadable"}; a web snapshot
    # skipped beside its entry's PDF: {"skipped": sentence}. See ingest/library_import.py.
    library = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]


class IngestFileData(models.Model):
    """The uploaded bytes of one ingest file, in Postgres so that a worker on any machine can read them.

    A table of its own keeps IngestFile rows light for the pages that list thousands of them.
    """

    file = models.OneToOneField(IngestFile, on_delete=models.CASCADE, related_name="stored", primary_key=True)
    data = models.BinaryField()
