"""Evaluations of a question set over a collection: the one way in, from the browser and the command line alike.

`start_evaluation` stores the questions on an Evaluation row, then queues it for a worker (the browser) or runs it
in the caller's process (`manage.py evaluate papers`); either way `run_evaluation` asks the questions with the
evaluation runner, recording its progress on the row for the page to show.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ..eval import EvaluationSettings, Papers
from ..models import Collection, Evaluation, Run
from . import queueing, quotas
from .evaluation_runner import evaluate, key_of

log = logging.getLogger(__name__)

EVALUATE_TASK = "evidence.run_evaluation"  # tasks.run_evaluation's name (sent by name: services never import tasks)
PROGRESS_EVERY_S = 1.0  # how often the preparation's progress is written (it ticks per batch of sentences)

Progress = Callable[[int, int], None]


class EvaluationRefused(Exception):
    """An evaluation that cannot start now; str() says why and what to do, in a sentence."""


def check_start(owner, collection: Collection, questions: list[dict[str, Any]]) -> None:
    """Raise EvaluationRefused when `owner` may not evaluate `questions` over `collection` now."""
    if not collection.documents.exists():
        raise EvaluationRefused(
            f"The collection “{collection.name}” has no documents yet: upload papers into it first."
        )
    docids = {e["docid"] for item in questions for e in item["evidence"] if e["docid"]}
    unknown = sorted(docids - set(collection.documents.filter(docid__in=docids).values_list("docid", flat=True)))
    if unknown:
        raise EvaluationRefused(
            f"The evidence names {len(unknown)} document{'s' if len(unknown) > 1 else ''} not in “{collection.name}” "
            f"({', '.join(unknown[:5])}{', …' if len(unknown) > 5 else ''}): use the docids of its papers, or give "
            "the quotes without a docid."
        )
    for earlier in Evaluation.objects.filter(
        owner=owner, status__in=[Evaluation.Status.QUEUED, Evaluation.Status.RUNNING]
    ):
        if earlier.is_active():
            raise EvaluationRefused(
                f"Evaluation #{earlier.pk} is still running: wait for it to finish before starting another."
            )
    today = Run.objects.filter(owner=owner, created_at__gte=timezone.now() - timedelta(days=1)).count()
    left = quotas.max_runs_per_day() - today
    if len(questions) > left:
        raise EvaluationRefused(
            f"Each question is a run, and {len(questions)} runs would pass your limit of {quotas.max_runs_per_day()} "
            f"a day ({max(left, 0)} left): evaluate fewer questions, or wait."
        )


def start_evaluation(
    owner,
    collection: Collection,
    system: str,
    questions: list[dict[str, Any]],
    *,
    label: str = "",
    config: EvaluationSettings | None = None,
    fresh: bool = True,
    background: bool = True,
    **run_options: Any,
) -> Evaluation:
    """Evaluate `system` on `questions` (read_question_set's items) over `collection`; return the Evaluation.

    In the background (the browser) the owner's limits apply (check_start) and a worker runs it; otherwise it runs
    here, to its end, with `run_options` (run_evaluation's). Not `fresh`, the evaluation of the same questions,
    collection, system and settings is taken back where it stopped.
    """
    settings_ = config or EvaluationSettings(run={"searcher": "hybrid"}, quiet_events=True)
    stored = settings_.as_stored()
    key = key_of(Papers(questions, collection.name, scoped=settings_.scoped), collection.name, system, stored)
    with transaction.atomic():
        if background:
            get_user_model().objects.select_for_update().filter(pk=owner.pk).first()  # one start at a time per owner
            check_start(owner, collection, questions)
        evaluation = None if fresh else Evaluation.objects.filter(owner=owner, key=key).order_by("-created_at").first()
        if evaluation is None:
            evaluation = Evaluation(owner=owner, benchmark=Papers.name, collection=collection, key=key)
        evaluation.system, evaluation.config, evaluation.label = system, stored, label[:200]
        evaluation.questions, evaluation.status, evaluation.error = questions, Evaluation.Status.QUEUED, ""
        evaluation.progress = {"stage": "queued", "done": 0, "total": len(questions), "at": time.time()}
        evaluation.save()
        if background and not evaluation.out_dir:
            evaluation.out_dir = str(Path(settings.DATA_DIR) / "evals" / f"evaluation-{evaluation.pk}")
            evaluation.save(update_fields=["out_dir"])
    if background:
        enqueue(evaluation)
    else:
        run_evaluation(evaluation.pk, **run_options)
        evaluation.refresh_from_db()
    return evaluation


def enqueue(evaluation: Evaluation) -> None:
    """Send a committed evaluation to the workers; with the queue away, drop it and refuse (as a run is refused)."""
    from celery import current_app

    try:
        with current_app.connection_for_write(transport_options=queueing.FAST_SOCKETS) as connection:
            current_app.send_task(
                EVALUATE_TASK,
                (evaluation.pk,),
                connection=connection,
                ignore_result=True,
                retry=True,
                retry_policy=queueing.FAST_PUBLISH,
            )
    except Exception as error:  # kombu raises OperationalError or a socket error, depending on where it failed
        log.warning("evaluation %s could not be queued: %s", evaluation.pk, error)
        Evaluation.objects.filter(pk=evaluation.pk, status=Evaluation.Status.QUEUED).delete()
        raise EvaluationRefused(
            "The job queue is unavailable: the evaluation was not started, try again shortly."
        ) from error


def run_evaluation(
    evaluation_id: int,
    *,
    spend_cap_usd: float | None = None,
    out_dir: Path | None = None,
    prepare: bool = True,
    progress: Progress | None = None,
    preparing: Progress | None = None,
) -> Evaluation | None:
    """Ask a queued evaluation's questions to the end; None when it is not queued (a task delivered twice)."""
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().filter(pk=evaluation_id).first()
        if evaluation is None or evaluation.status != Evaluation.Status.QUEUED:
            return None
        evaluation.status = Evaluation.Status.RUNNING
        evaluation.progress = {**evaluation.progress, "stage": "preparing", "at": time.time()}
        evaluation.save(update_fields=["status", "progress"])
    record = Recorder(evaluation.pk, len(evaluation.questions))

    def asking(index: int, total: int) -> None:
        record("asking", index - 1, total, force=True)
        if progress is not None:
            progress(index, total)

    def prepared(done: int, total: int) -> None:
        record("preparing", done, total)
        if preparing is not None:
            preparing(done, total)

    try:
        if evaluation.collection is None:
            raise EvaluationRefused("Its collection was deleted.")
        evaluate(
            Papers(
                evaluation.questions,
                evaluation.collection.name,
                scoped=EvaluationSettings.of(evaluation.config).scoped,
            ),
            evaluation.owner,
            evaluation.system,
            evaluation.config,
            out_dir=out_dir or (Path(evaluation.out_dir) if evaluation.out_dir else None),
            spend_cap_usd=spend_cap_usd,
            progress=asking,
            preparing=prepared,
            prepare=prepare,
            evaluation=evaluation,
        )
    except Exception as error:
        log.exception("evaluation %s failed", evaluation.pk)
        Evaluation.objects.filter(pk=evaluation.pk).update(
            status=Evaluation.Status.FAILED, error=failure_sentence(error), finished_at=timezone.now()
        )
        raise
    record("done", evaluation.items.count(), record.total, force=True)
    evaluation.refresh_from_db()
    return evaluation


class Recorder:
    """Writes an evaluation's progress on its row: every question, and the preparation at most once a second."""

    def __init__(self, evaluation_id: int, total: int) -> None:
        self.evaluation_id, self.total, self.last = evaluation_id, total, 0.0

    def __call__(self, stage: str, done: int, total: int, force: bool = False) -> None:
        now = time.time()
        if not force and now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        progress = {"stage": stage, "done": done, "total": total, "at": now}
        Evaluation.objects.filter(pk=self.evaluation_id).update(progress=progress)


def failure_sentence(error: BaseException) -> str:
    """What the page says of an evaluation that failed (the traceback goes to the log)."""
    detail = str(error).strip() or type(error).__name__
    return f"The evaluation stopped with an error: {detail[:400]}"
