"""Queue a run for a worker, failing within a second or two when the broker is down.

A client that waits 38 s for its 503 times out and retries, and a retry must not start a second run, so the
publish gives up fast (one quick retry, short connect timeouts in settings) and a run that never reached the
queue is ended at once, its Idempotency-Key freed for the retry.
"""

from __future__ import annotations

import logging

from ..models import Run

log = logging.getLogger(__name__)

# One quick retry covers a broker connection that just dropped; a broker that is down fails in well under 2 s.
FAST_PUBLISH = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
# The web process's own broker connection: a refused or silent broker (hung, half-open) answers within a second.
# Workers keep the default timeouts from settings, so a slow moment of Redis does not break their BRPOP.
FAST_SOCKETS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.4}
RETRY_AFTER_S = 5
QUEUE_DOWN = "The job queue is unavailable: the run was not started, try again shortly."


RUN_TASK = "evidence.run_research"  # tasks.run_research's name (sent by name: see enqueue_run)
INGEST_TASK = "evidence.ingest_file"  # tasks.ingest_file's


def send(task: str, args: tuple) -> None:
    """Send a task by its name (no result kept); raise if the broker cannot be reached."""
    from celery import current_app

    current_app.send_task(task, args, ignore_result=True)


def enqueue_run(run_id: int) -> None:
    """Send a committed run to the workers (no result is kept: the run's row is its result)."""
    from celery import current_app

    with current_app.connection_for_write(transport_options=FAST_SOCKETS) as connection:
        # Sent by name, so this module does not import the tasks (which import the runs service, which imports us).
        # ignore_result: the Redis result backend would otherwise subscribe first, retrying 20 times a second apart.
        current_app.send_task(
            RUN_TASK, (run_id,), connection=connection, ignore_result=True, retry=True, retry_policy=FAST_PUBLISH
        )


def drop_unqueued(run_id: int, error: BaseException) -> None:
    """Delete a run whose task never reached the queue: the request was refused (503), so no run is left in the
    owner's list, nothing waits on it, and the Idempotency-Key is free for the client's retry. A message that did
    reach the broker after all finds no run and does nothing."""
    log.warning("run %s could not be queued: %s", run_id, error)  # the cause goes to the log, not to the user
    Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).delete()
