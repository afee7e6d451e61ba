"""Thin Celery entry points: each takes primary keys and calls a plain function."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from celery import shared_task
from celery.signals import worker_process_init, worker_ready
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction

from . import streams
from .agent import readers
from .agent.core import JudgeSpec
from .ingest import jobs
from .services import uploads


@shared_task(name="evidence.record_event")
def record_event(run_id: int, kind: str, payload: dict[str, Any]) -> int:
    """Append an event to a run's stream from a worker; returns its seq."""
    return streams.emit(run_id, kind, payload).seq


# A task that loses Postgres retries every 20 s at most, for about half an hour of outage: it ends within seconds
# of the database's return. Past that a file waits for the reaper, which never gives up that fast.
RIDES_OUT_OUTAGES = {
    "acks_late": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": 1,
    "retry_backoff_max": 20,
    "retry_jitter": False,
    "max_retries": settings.EVIDENCE_INGEST_RETRIES,
}


@shared_task(name="evidence.ingest_file", bind=True, **RIDES_OUT_OUTAGES)
def ingest_file(self, file_id: int) -> str | None:
    """Parse, embed and index one uploaded file; a repeated delivery of the same file is a no-op.

    A lost database connection (Postgres restarting) retries the task; the retry takes the file back where the
    first try left it (documents are committed whole, so at most the unfinished ones are written again).
    """
    record = jobs.process_file(file_id, resume=self.request.retries > 0)
    if record is not None and record.status == record.Status.UNPACKED:
        uploads.queue_files(list(record.members.filter(status=record.Status.QUEUED).values_list("pk", flat=True)))
    if record is not None and record.status == record.Status.DONE and record.documents_added:
        enqueue_preparation(jobs.documents_of(record))
    return record.status if record else None


@shared_task(name="evidence.prepare_for_reading", **RIDES_OUT_OUTAGES)
def prepare_for_reading(document_ids: list[int]) -> int:
    """Embed one chunk of these documents' sentences and paragraphs, then queue the next chunk (if any)."""
    from .ingest import prepare_some

    embedded, remaining = prepare_some(document_ids)
    if remaining:
        enqueue_preparation(remaining)
    return embedded


def enqueue_preparation(document_ids: list[int]) -> bool:
    """Queue the background preparation of documents for reading (after the current transaction commits); False
    when it is off or the broker is away (a question then embeds what it reads, as before)."""
    from django.conf import settings

    if not document_ids or not settings.EVIDENCE_PREPARE_IN_BACKGROUND:
        return False

    def send() -> None:
        try:
            prepare_for_reading.apply_async((list(document_ids),), queue=settings.EVIDENCE_PREPARE_QUEUE)
        except Exception:  # the broker is away: the first question on these papers embeds what it reads
            logging.getLogger(__name__).warning("could not queue the preparation of %d documents", len(document_ids))

    transaction.on_commit(send)
    return True


@shared_task(
    name="evidence.run_research",
    bind=True,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=1,
    retry_backoff_max=20,
    retry_jitter=False,
    max_retries=settings.EVIDENCE_RUN_RETRIES,  # as ingest_file: about half an hour
)
def run_research(self, run_id: int) -> str | None:
    """Run a research run to its end status; a repeated delivery of a claimed run is a no-op.

    A lost database connection retries the task with backoff (every 20 s at most); the retry takes back
    a run its own first try claimed and could not finish (see runs.claim_run), so the run ends soon after the
    database returns instead of waiting for the reaper's stale window.
    """
    from .services import execute_run, reap_stale_runs, reclaimable_in_s

    # A redelivered task whose first worker died finds the run 'running' with a stale heartbeat: end it.
    reap_stale_runs(run_id=run_id)
    retrying = self.request.retries > 0
    run = execute_run(run_id, retry=retrying)
    if run is None and retrying and (wait := reclaimable_in_s(run_id)) is not None:
        # The first try's run still looks alive (the outage was short): try again once its heartbeat is old enough.
        raise self.retry(countdown=wait)
    return run.status if run else None


@shared_task(name="evidence.run_evaluation", acks_late=False)
def run_evaluation(evaluation_id: int) -> str | None:
    """Ask a queued evaluation's questions to the end; a repeated delivery is a no-op.

    Acknowledged on receipt: an evaluation outlasts the broker's visibility timeout, and a second delivery would
    only find it running. A lost worker leaves it stalled (the page says so), never asked twice.
    """
    from .services import run_evaluation as run

    evaluation = run(evaluation_id)
    return evaluation.status if evaluation else None


@worker_process_init.connect
def warm_answer_layer(**_kwargs: object) -> None:
    """Load the answer layer's parser in the background when a pool process starts (about 2 s), so the first
    question a process answers does not wait for it."""
    from .answers.nlp import pipeline

    def load() -> None:
        try:
            pipeline()
        except Exception:  # the first question loads it again and reports what is wrong
            logging.getLogger(__name__).exception("could not load the answer layer's parser")

    threading.Thread(target=load, name="evidence-warm-answers", daemon=True).start()


REAP_EVERY_S = settings.EVIDENCE_REAP_EVERY_S


@worker_ready.connect
def reap_on_start(**_kwargs: object) -> None:
    """When a worker starts, end or restart work a lost worker or a lost message left, then check every minute."""
    threading.Thread(target=_reap_forever, name="evidence-reaper", daemon=True).start()


def _reap_forever() -> None:
    from django.db import close_old_connections

    from .services import reap

    while True:
        try:
            acted = {what: ids for what, ids in reap().items() if ids}
            if acted:
                logging.getLogger(__name__).warning("reaper: %s", acted)
        except Exception:  # a database outage must not kill the reaper: it tries again next minute
            logging.getLogger(__name__).exception("reaping stuck work failed")
        finally:
            close_old_connections()
        time.sleep(REAP_EVERY_S)


_judges: dict[str, Any] = {}


@shared_task(name="evidence.judge_batch", track_started=True)
def judge_batch(
    judge_spec: dict[str, Any], collection_id: int, goal: str, refs: list[list[Any]], options: dict[str, Any]
) -> dict[str, Any]:
    """Localize evidence for one sub-question in one batch of units (System 1's unit of parallel work)."""
    from .agent.readers import judge_batch_locally

    spec = JudgeSpec.from_json(judge_spec)
    return judge_batch_locally(_judge_for(spec), spec.block_kind, collection_id, goal, refs, options)


def _judge_for(spec: JudgeSpec) -> Any:
    """Return the worker's judge for a spec, built once per process (heads are loaded once)."""
    import json

    from .agent.core import make_judge

    key = json.dumps(spec.as_json(), sort_keys=True)
    if key not in _judges:
        _judges[key] = make_judge(spec)
    return _judges[key]


@shared_task(name="evidence.mine_leads", track_started=True)
def mine_leads(
    judge_spec: dict[str, Any], collection_id: int, question: str, refs: list[list[Any]], clues: list[str]
) -> list[list[Any]]:
    """Mine leads for a question's clues in one batch of units (evidence mining, run in the background)."""
    from .agent.systems import mine_locally

    spec = JudgeSpec.from_json(judge_spec)
    return mine_locally(_judge_for(spec), spec.block_kind, collection_id, question, refs, clues)


# System 1's batches run as these tasks when the agent runs inside a worker (it never imports this module).
readers.register("judge_batch", judge_batch)
readers.register("mine_leads", mine_leads)
