"""Run a research run to exactly one end status, writing its trajectory, spans, citations and events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from .. import events
from ..models import Document, Run, Span
from .answer import Answer
from .budget import DeadlineReached, TimeBudget
from .systems import SYSTEMS, Outcome, RunContext
from .tools import ResearchTools
from .trajectory import Trajectory

log = logging.getLogger(__name__)

SYSTEM_NAMES = tuple(SYSTEMS)


def claim_run(run_id: int) -> Run | None:
    """Move a queued run to running; a run already claimed or finished (a repeated task) gives None."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != Run.Status.QUEUED:
            return None
        run.status = Run.Status.RUNNING
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at"])
    return run


def make_judge(name: str):
    """Return the System 1 provider for a run (only `local` runs offline)."""
    if name == "local":
        from ..judge.local import LocalJudge

        return LocalJudge()
    raise ValueError(f"unknown judge provider {name!r} for offline runs: use 'local'")


def execute_run(run_id: int, emit: Callable[..., Any] = events.emit) -> Run | None:
    """Run the research loop for a queued run; every failure ends in a recorded status, never a stuck run."""
    run = claim_run(run_id)
    if run is None:
        return None
    trajectory = Trajectory()
    ctx: RunContext | None = None
    emit(run.pk, "status", {"status": "running", "system": run.system, "question": run.question})
    try:
        if run.system not in SYSTEMS:
            raise ValueError(f"unknown system {run.system!r}: choose one of {', '.join(SYSTEMS)}")
        config = dict(run.config or {})
        clock = TimeBudget(run.budget_s)
        tools = ResearchTools(run, trajectory, searcher=config.get("searcher", "hybrid"), emit=emit)
        judge = make_judge(config.get("judge", "local")) if run.system == "dual" else None
        ctx = RunContext(run=run, trajectory=trajectory, tools=tools, clock=clock, emit=emit, judge=judge,
                         config=config)
        outcome = SYSTEMS[run.system](ctx)
        if clock.expired:
            outcome = Outcome(Run.Status.DEADLINE, outcome.answer)
    except DeadlineReached:
        from .answer import compose_extractive
        from .planner import make_plan

        delivered = ctx.delivered if ctx else []
        outcome = Outcome(Run.Status.DEADLINE, compose_extractive(run.question, delivered, make_plan(run.question).boolean))
    except Exception as error:  # the run must end in a defined state, with its trajectory kept
        log.exception("run %s failed", run.pk)
        run.error = f"{type(error).__name__}: {error}"
        outcome = Outcome(Run.Status.FAILED, Answer(explanation="", exact_answer="", confidence=0.0))
    finish(run, outcome, trajectory, ctx, emit)
    return run


def finish(run: Run, outcome: Outcome, trajectory: Trajectory, ctx: RunContext | None, emit: Callable[..., Any]) -> None:
    """Write spans and citations, the answer and trajectory, and the single end status."""
    answer = outcome.answer
    with transaction.atomic():
        documents = {d.docid: d for d in Document.objects.filter(collection_id=run.collection_id)
                     .filter(docid__in={s.docid for s in (ctx.delivered if ctx else [])})}
        stored: dict[tuple[str, int, int], Span] = {}
        for span in ctx.delivered if ctx else []:
            document = documents.get(span.docid)
            if document is None:
                continue
            stored[(span.docid, span.start, span.end)] = Span.objects.create(
                run=run, document=document, start=span.start, end=span.end, quote=span.quote, page=span.page,
                probability=span.probability, delivered=True,
            )
        for index, span in answer.citations:
            row = stored.get((span.docid, span.start, span.end))
            if row is not None:
                run.citations.create(span=row, answer_part=index, marker=f"[{span.docid}]")
        run.answer = answer.as_dict()
        run.trajectory = trajectory.as_dict()
        run.status = outcome.status
        run.finished_at = timezone.now()
        run.save(update_fields=["answer", "trajectory", "status", "finished_at", "error"])
    emit(run.pk, "answer", run.answer)
    emit(run.pk, "finished", {"status": run.status, "error": run.error, "funnel": trajectory.counts(),
                              "elapsed_s": round(run.elapsed_s or 0.0, 3)})
