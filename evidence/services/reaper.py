"""End or restart work that lost its worker or its queue message, so no run, file or upload waits forever.

Three faults leave work behind: a broker restart drops queued messages (runs and files stay `queued`), a worker
killed mid-task leaves a file `parsing` or `embedding` (its message comes back only after the broker's visibility
timeout, and a claimed file refuses it), and a database outage longer than a task's retries leaves whatever it
was doing. Every worker runs `reap()` once a minute. Sending a task twice is harmless (a claimed run or file
makes the second a no-op), so a unit that waited too long is simply sent again, with a growing interval, and
ended with a plain reason when it has waited too many times.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from .. import run_state
from ..ingest import file_beat_every_s, refresh_job
from ..models import IngestFile, IngestJob, Run
from . import queueing

log = logging.getLogger(__name__)

MAX_SENDS = 5  # resends at 1, 2, 4, 8 and 16 resend intervals: with the default, about an hour in all
MAX_ATTEMPTS = 3  # workers lost while ingesting one file before it is failed


def resend_after_s() -> float:
    return float(settings.EVIDENCE_RESEND_AFTER_S)


def file_stale_after_s() -> float:
    return float(settings.EVIDENCE_FILE_STALE_AFTER_S)


def due_for_resend(sent: datetime, sends: int, now: datetime) -> bool:
    """Whether a unit last sent at `sent`, `sends` resends ago, has waited past its current interval."""
    return now - sent >= timedelta(seconds=resend_after_s() * 2**sends)


def reap(now: datetime | None = None) -> dict[str, list[int]]:
    """One pass over every kind of stuck unit; returns the ids acted on, by what was done."""
    from .runs import reap_stale_runs

    now = now or timezone.now()
    acted = {"runs_failed_lost_worker": reap_stale_runs(), **requeue_stale_files(now)}
    # Queued work behind live work is a backlog, not a lost message: it is only sent again once workers are idle.
    if not workers_busy(now):
        acted |= {**requeue_queued_runs(now), **requeue_queued_files(now)}
    acted["jobs_rolled_up"] = roll_up_ended_jobs()
    return acted


MISSED_BEATS = 3  # a unit whose worker missed this many beats in a row is stranded, not busy


def workers_busy(now: datetime) -> bool:
    """Whether some worker is working (it beat for its file or run within the last few beats), or ended a unit
    within the last resend interval.

    A stranded file or run (its worker gone, its claim not yet old enough to take back) stops beating, so it no
    longer holds back the resending of queued work behind it.
    """
    from .runs import run_beat_every_s

    recent = now - timedelta(seconds=resend_after_s())
    working = [IngestFile.Status.PARSING, IngestFile.Status.EMBEDDING]
    return (
        IngestFile.objects.filter(
            status__in=working, updated_at__gte=now - timedelta(seconds=MISSED_BEATS * file_beat_every_s())
        ).exists()
        or IngestFile.objects.filter(
            updated_at__gte=recent, status__in=[IngestFile.Status.DONE, IngestFile.Status.FAILED]
        ).exists()
        or Run.objects.filter(
            status=Run.Status.RUNNING, heartbeat_at__gte=now - timedelta(seconds=MISSED_BEATS * run_beat_every_s())
        ).exists()
        or Run.objects.filter(finished_at__gte=recent).exists()
    )


def roll_up_ended_jobs() -> list[int]:
    """Jobs still shown running whose files have all ended (a roll-up lost to a database error): roll them up."""
    unfinished = [IngestFile.Status.QUEUED, IngestFile.Status.PARSING, IngestFile.Status.EMBEDDING]
    jobs = (
        IngestJob.objects.filter(status__in=[IngestJob.Status.QUEUED, IngestJob.Status.RUNNING])
        .exclude(files__status__in=unfinished)
        .values_list("pk", flat=True)
    )
    ended = list(jobs)
    for job_id in ended:
        refresh_job(job_id)
    return ended


def requeue_queued_runs(now: datetime) -> dict[str, list[int]]:
    resent, failed = [], []
    for run in Run.objects.filter(status=Run.Status.QUEUED).only("pk", "created_at", "sent_at", "sends"):
        if not due_for_resend(run.sent_at or run.created_at, run.sends, now):
            continue
        if run.sends >= MAX_SENDS:
            if run_state.end_run(
                run.pk, Run.Status.FAILED, expected=[Run.Status.QUEUED], now=now,
                error="No worker started this run in over an hour: check that a worker is running, then ask again.",
                said="never started",
            ):  # fmt: skip
                failed.append(run.pk)
            continue
        if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED, sends=run.sends).update(
            sends=F("sends") + 1, sent_at=now
        ):
            try:
                queueing.send(queueing.RUN_TASK, (run.pk,))
                resent.append(run.pk)
            except Exception:  # the broker is still down: the next pass tries again
                log.warning("could not queue run %s again", run.pk)
    return {"runs_resent": resent, "runs_failed_never_started": failed}


def requeue_stale_files(now: datetime) -> dict[str, list[int]]:
    """Files claimed by a worker that went silent: queue them again, or fail them after a few lost workers."""
    cutoff = now - timedelta(seconds=file_stale_after_s())
    stale = IngestFile.objects.filter(
        status__in=[IngestFile.Status.PARSING, IngestFile.Status.EMBEDDING], updated_at__lt=cutoff
    ).only("pk", "job_id", "name", "attempts", "status")
    requeued, failed = [], []
    for record in stale:
        still = IngestFile.objects.filter(pk=record.pk, status=record.status, updated_at__lt=cutoff)
        if record.attempts >= MAX_ATTEMPTS:
            reason = (
                f"{record.name} stopped the worker ingesting it {record.attempts} times: split it into smaller "
                "files, or retry it."
            )
            if still.update(status=IngestFile.Status.FAILED, error=reason):
                failed.append(record.pk)
        elif still.update(status=IngestFile.Status.QUEUED, sends=0, sent_at=now):
            _send_file(record.pk)
            requeued.append(record.pk)
        refresh_job(record.job_id)
    return {"files_requeued_lost_worker": requeued, "files_failed_lost_worker": failed}


def requeue_queued_files(now: datetime) -> dict[str, list[int]]:
    """Queued files whose message may be gone: send them again, and fail them when no worker ever takes them."""
    queued = (
        IngestFile.objects.filter(status=IngestFile.Status.QUEUED)
        .select_related("job")
        .only("pk", "job_id", "job__created_at", "name", "sends", "sent_at")
    )
    resent, failed = [], []
    for record in queued:
        if not due_for_resend(record.sent_at or record.job.created_at, record.sends, now):
            continue
        same = IngestFile.objects.filter(pk=record.pk, status=IngestFile.Status.QUEUED, sends=record.sends)
        if record.sends >= MAX_SENDS:
            reason = f"{record.name} waited over an hour for a worker: check that a worker is running, then retry it."
            if same.update(status=IngestFile.Status.FAILED, error=reason):
                failed.append(record.pk)
                refresh_job(record.job_id)
        elif same.update(sends=F("sends") + 1, sent_at=now):
            _send_file(record.pk)
            resent.append(record.pk)
    return {"files_resent": resent, "files_failed_never_started": failed}


def _send_file(file_id: int) -> None:
    try:
        queueing.send(queueing.INGEST_TASK, (file_id,))
    except Exception:  # the broker is still down: the next pass tries again
        log.warning("could not queue file %s again", file_id)
