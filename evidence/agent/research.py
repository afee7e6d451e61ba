"""Run a research run to exactly one end status: claim it, build its context, run its system, record the end.

The system comes from the registry (agent/systems/registry.py), the planner and the System 1 judge are built from
the run's typed configuration (run_state/config.py) and injected; the recorder writes every row. The runs service
(evidence/services/runs.py) claims the run and calls in here; it also reaps runs whose worker was lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .. import streams
from ..models import Run
from ..run_state import RunConfig
from .core import (
    Answer,
    DeadlineReached,
    JudgeSpec,
    Outcome,
    ResearchTools,
    RunCancelled,
    RunContext,
    RunRecorder,
    TimeBudget,
    make_judge,
    planner_for,
    ticking,
)
from .llm import BudgetExceeded
from .systems import SYSTEM_NAMES, SYSTEMS

log = logging.getLogger(__name__)

__all__ = ["INTERNAL_ERROR", "SYSTEMS", "SYSTEM_NAMES", "run_claimed"]


def run_claimed(run: Run, emit: Callable[..., Any] = streams.emit) -> Run:
    """Run the research loop for a run the runs service claimed; every failure ends in a recorded status.

    While it works, a progress event breaks any silence of a few seconds (agent/core/progress.py); it stops before
    the end is recorded.
    """
    with ticking(run.pk, emit) as speak:
        recorder = RunRecorder(run, speak)
        outcome = research(run, recorder)
    # The recorder writes the end, keeping a cancel or a reap that came first.
    recorder.finish(outcome.status, outcome.answer)
    return run


def research(run: Run, recorder: RunRecorder) -> Outcome:
    """Build the run's context and run its system; return how it ended (never raises)."""
    ctx: RunContext | None = None
    try:
        recorder.event("status", {"status": "running", "system": run.system, "question": run.question})
        system = SYSTEMS.get(run.system)
        if system is None:
            raise ValueError(f"unknown system {run.system!r}: choose one of {', '.join(SYSTEMS)}")
        config = RunConfig.of(run)
        clock = TimeBudget(run.budget_s)
        spec = JudgeSpec.of(config)
        judge = make_judge(spec) if system.uses_judge else None
        ctx = RunContext(
            run=run,
            tools=ResearchTools(run, recorder, searcher=config.searcher, scope=config.scope_docids),
            clock=clock,
            recorder=recorder,
            judge=judge,
            judge_spec=spec,
            config=config,
            planner=planner_for(run, config),
        )
        recorder.check_cancelled()  # alive once its context is built (a cold index load can take seconds)
        outcome = system.run(ctx)
        if outcome.status in (Run.Status.ANSWERED, Run.Status.NO_NEW_PASSAGES) and not outcome.answer.found:
            # The collection does not answer the question (no evidence, or the reader says it is absent).
            outcome = Outcome(Run.Status.NOT_FOUND, outcome.answer)
        if clock.expired:
            outcome = Outcome(Run.Status.DEADLINE, outcome.answer)
    except DeadlineReached:
        outcome = Outcome(Run.Status.DEADLINE, fallback_answer(run, ctx))
    except BudgetExceeded as error:
        run.error = str(error)
        outcome = Outcome(Run.Status.BUDGET, fallback_answer(run, ctx))
    except RunCancelled:
        outcome = Outcome(Run.Status.CANCELLED, fallback_answer(run, ctx))
    except Exception as error:  # the run must end in a defined state, with its trajectory kept
        log.exception("run %s failed", run.pk)
        run.error = user_error(error)
        outcome = Outcome(Run.Status.FAILED, Answer(explanation="", exact_answer="", confidence=0.0))
    return outcome


INTERNAL_ERROR = (
    "The run stopped because of an internal error (it is logged on the server): ask again, and report it if it "
    "happens again."
)


def user_error(error: Exception) -> str:
    """The sentence a user reads: our own errors say what went wrong; anything else is logged, not shown."""
    ours = type(error).__module__.startswith("evidence.") or type(error) is ValueError
    return str(error) if ours and str(error) else INTERNAL_ERROR


def fallback_answer(run: Run, ctx: RunContext | None) -> Answer:
    """Answer extractively from whatever was delivered before the run had to stop."""
    from .core import compose_extractive

    delivered = ctx.delivered if ctx else []
    return compose_extractive(run.question, delivered, threshold=ctx.config.answer_threshold if ctx else None)
