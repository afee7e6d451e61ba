"""Run a research run to exactly one end status, writing its trajectory, spans, citations and events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .. import events
from ..models import Run
from .answer import Answer
from .budget import DeadlineReached, TimeBudget
from .context import Outcome, RunCancelled, RunContext
from .llm.errors import BudgetExceeded
from .recorder import RunRecorder
from .systems import SYSTEMS
from .tools import ResearchTools
from .trajectory import Trajectory

log = logging.getLogger(__name__)

SYSTEM_NAMES = tuple(SYSTEMS)


STALE_AFTER_S = 180


def stale_window_s() -> float:
    """Return how long a silent heartbeat means a lost worker (setting EVIDENCE_RUN_STALE_AFTER_S)."""
    from django.conf import settings

    return float(getattr(settings, "EVIDENCE_RUN_STALE_AFTER_S", STALE_AFTER_S))


def reap_stale_runs(stale_after_s: float | None = None, run_id: int | None = None) -> list[int]:
    """Mark running runs whose heartbeat stopped (their worker died) as failed, keeping their trajectory."""
    if stale_after_s is None:
        stale_after_s = stale_window_s()
    cutoff = timezone.now() - timedelta(seconds=stale_after_s)
    stale = Run.objects.filter(status=Run.Status.RUNNING).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )
    if run_id is not None:
        stale = stale.filter(pk=run_id)
    reaped = []
    for run in stale:
        updated = Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
            status=Run.Status.FAILED,
            error="The worker running this run stopped (its heartbeat was lost); the trajectory so far is kept.",
            finished_at=timezone.now(),
        )
        if updated:
            events.emit(
                run.pk,
                "finished",
                {
                    "status": Run.Status.FAILED,
                    "error": "worker lost",
                    "funnel": Trajectory.from_dict(run.trajectory).counts(),
                },
            )
            reaped.append(run.pk)
    return reaped


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


def judge_spec(config: dict[str, Any]) -> dict[str, Any]:
    """Return how to build the run's System 1 judge (provider, head overrides, block kind): JSON, for workers."""
    return {
        "name": str(config.get("judge", "local")),
        "heads": dict(config.get("judge_heads") or {}),
        "block_kind": str(config.get("block_kind", "sentence")),
    }


def make_judge(spec: dict[str, Any]):
    """Return the System 1 provider of a judge spec (only `local` runs offline)."""
    if spec.get("name", "local") == "local":
        from ..judge.local import LocalJudge

        return LocalJudge(heads=spec.get("heads") or None)
    raise ValueError(f"unknown judge provider {spec.get('name')!r} for offline runs: use 'local'")


def planner_for(run: Run) -> str:
    """Return 'llm', 'replay' or 'offline': the run's choice, else an LLM when a key is configured."""
    from django.conf import settings

    chosen = (run.config or {}).get("planner")
    if chosen:
        return str(chosen)
    if settings.OPENAI_API_KEY:
        return "llm"
    return "offline"


def make_llm_client(run: Run, planner: str):
    """Build the recorded model client of a run: a live OpenAI-compatible one, or a replay of another run."""
    from django.conf import settings

    from .llm import SpendingCap, make_client
    from .llm.recording import DjangoRecorder

    cap = SpendingCap(run.spend_cap_usd)
    recorder = DjangoRecorder(run_id=run.pk)
    if planner == "replay":
        source = (run.config or {}).get("replay_of")
        if not source:
            raise ValueError("a replay run needs config['replay_of'], the id of the recorded run")
        return make_client("replay", source=DjangoRecorder(source_run_id=int(source)), recorder=recorder, cap=cap)
    return make_client(
        "openai",
        recorder=recorder,
        cap=cap,
        base_url=(run.config or {}).get("base_url") or settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY or None,
    )


def execute_run(run_id: int, emit: Callable[..., Any] = events.emit) -> Run | None:
    """Run the research loop for a queued run; every failure ends in a recorded status, never a stuck run."""
    run = claim_run(run_id)
    if run is None:
        return None
    trajectory = Trajectory()
    recorder = RunRecorder(run, trajectory, emit)
    ctx: RunContext | None = None
    emit(run.pk, "status", {"status": "running", "system": run.system, "question": run.question})
    try:
        if run.system not in SYSTEMS:
            raise ValueError(f"unknown system {run.system!r}: choose one of {', '.join(SYSTEMS)}")
        config = dict(run.config or {})
        clock = TimeBudget(run.budget_s)
        tools = ResearchTools(run, trajectory, searcher=config.get("searcher", "hybrid"), emit=emit)
        spec = judge_spec(config)
        judge = make_judge(spec) if run.system == "dual" else None
        ctx = RunContext(
            run=run,
            trajectory=trajectory,
            tools=tools,
            clock=clock,
            recorder=recorder,
            judge=judge,
            config=config,
            judge_spec=spec,
        )
        planner = planner_for(run)
        if planner in {"llm", "replay"}:
            from django.conf import settings

            from .llm_planner import run_llm_planner
            from .llm_systems import LLM_SYSTEMS

            client = make_llm_client(run, planner)
            drive = LLM_SYSTEMS.get(run.system, run_llm_planner)
            outcome = drive(ctx, client, config.get("model") or settings.OPENAI_MODEL)
        else:
            outcome = SYSTEMS[run.system](ctx)
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
    finish(recorder, outcome, ctx)
    return run


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
    from .answer import compose_extractive
    from .planner import make_plan

    delivered = ctx.delivered if ctx else []
    answer = compose_extractive(run.question, delivered, make_plan(run.question).boolean)
    if ctx:
        ctx.trajectory.add("cited", [span.docid for _, span in answer.citations])
    return answer


def finish(recorder: RunRecorder, outcome: Outcome, ctx: RunContext | None) -> None:
    """Write the run's end through its recorder; a run cancelled while its last step ran ends cancelled."""
    status = Run.Status.CANCELLED if recorder.was_cancelled() else outcome.status
    recorder.finish(status, outcome.answer, ctx.delivered if ctx else [])
