"""The one writer of a run's life: its status, its heartbeat, and the one `finished` event that ends its stream.

Every place that starts, beats, cancels or ends a run calls in here (the runs service, the reaper, the research
loop's recorder); `tests/foundation/test_one_writer.py` fails if another module writes `Run.status` or the
heartbeat. An end is conditional (from the statuses the caller expects), so the first end wins and is announced
once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from .. import streams
from ..models import Run

FINISHED = "finished"  # the event kind that ends a run's stream


def mark_running(run: Run, now: datetime | None = None) -> None:
    """A worker claimed the run (under the caller's row lock): running, alive from the claim on."""
    run.status = Run.Status.RUNNING
    run.started_at = run.heartbeat_at = now or timezone.now()
    run.save(update_fields=["status", "started_at", "heartbeat_at"])


def beat(run_id: int, trajectory: dict[str, Any] | None = None, only_running: bool = False) -> str | None:
    """Move the heartbeat (and save the trajectory, when given) in one statement; return the run's status (None when
    it is gone, or not running with `only_running`)."""
    condition = " AND status = 'running'" if only_running else ""
    with connection.cursor() as cursor:
        if trajectory is None:
            cursor.execute(
                f"UPDATE evidence_run SET heartbeat_at = now() WHERE id = %s{condition} RETURNING status", [run_id]
            )
        else:
            cursor.execute(
                f"UPDATE evidence_run SET heartbeat_at = now(), trajectory = %s WHERE id = %s{condition} "
                "RETURNING status",
                [json.dumps(trajectory), run_id],
            )
        row = cursor.fetchone()
    return row[0] if row else None


def end_run(
    run_id: int,
    status: str,
    *,
    expected: Iterable[str],
    error: str = "",
    said: str | None = None,
    details: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> bool:
    """End a run that is in one of the `expected` statuses: its end status, error and time, then its one finished
    event (`said` is the event's short error, `details` more of its fields). False when it was not in them. The
    status and the event commit together: a reader who sees the run ended finds its finished event too."""
    with transaction.atomic():
        ended = Run.objects.filter(pk=run_id, status__in=list(expected)).update(
            status=status, error=error, finished_at=now or timezone.now()
        )
        if ended:
            announce_end(run_id, status, error if said is None else said, details)
    return bool(ended)


def ask_to_cancel(run_id: int) -> bool:
    """The owner cancels a running run: it is told through its status and ends itself at its next step, keeping
    what it found (its recorder announces the end)."""
    return bool(Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(status=Run.Status.CANCELLED))


def end_state(run_id: int) -> dict[str, Any] | None:
    """The run's status, error and end time, its row locked until the caller's transaction ends."""
    return Run.objects.select_for_update().filter(pk=run_id).values("status", "error", "finished_at").first()


def record_end(run: Run, status: str, finished_at: datetime, fields: Iterable[str]) -> None:
    """The research loop's own end (in the transaction that locked `end_state`): the status with the rows it wrote."""
    run.status, run.finished_at = status, finished_at
    run.save(update_fields=["status", "finished_at", *fields])


def announce_end(
    run_id: int, status: str, error: str, details: dict[str, Any] | None = None, emit: Callable[..., Any] = streams.emit
) -> None:
    """The one finished event of a run, sent once its end status is written (through the run's own emit, when the
    research loop ends it)."""
    emit(run_id, FINISHED, {"status": status, "error": error, **(details or {})})
