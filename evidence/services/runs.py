"""The runs service: the one way into a run and the one way out: create, start, claim, cancel, reap.

The Ask page, the API, `manage.py ask`, evaluations and replays all create runs here, so they refuse the same
bad run for the same reason: an empty question, an empty collection, documents that are not in the collection,
the owner's quota (for runs people start), a job queue that cannot be reached. Callers turn the exceptions into
their own answers (a form error, an HTTP status, a command error).
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .. import run_state, streams
from ..models import Collection, Run
from ..run_state import RunConfig
from . import queueing, quotas

log = logging.getLogger(__name__)


class RunRefused(ValueError):
    """A run that cannot be started as asked; str() says why and what to do, `field` what it is about."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class QueueDown(Exception):
    """The broker could not be reached: the run was not started, and none was left behind."""


def check_request(collection: Collection, question: str, documents: list[str] | None = None) -> list[str]:
    """Validate what a run asks for; return the documents it is limited to (RunRefused says what is wrong)."""
    if not question.strip():
        raise RunRefused("Type a question.", "question")
    if not collection.documents.exists():
        raise RunRefused("This collection has no documents yet: upload some first.", "collection")
    try:
        return collection.scope_docids(documents or [])
    except ValueError as error:
        raise RunRefused(str(error), "documents") from error


def create_run(
    owner,
    collection: Collection,
    question: str,
    *,
    system: str,
    task: str = Run.Task.QA,
    config: RunConfig | dict[str, Any] | None = None,
    budget_s: float | None = None,
    spend_cap_usd: float | None = None,
    quota: bool = True,
    idempotency_key: str | None = None,
    follows: Run | None = None,
) -> tuple[Run, bool]:
    """Create a queued run row (committed); return (run, created).

    `quota` applies the owner's limits (people starting runs; evaluations and replays run on their own budget).
    A key the owner already used returns that run (created False) instead of another. A configuration that
    does not validate is a RunRefused about `config`, saying which option is wrong.
    """
    if not isinstance(config, RunConfig):
        try:
            config = RunConfig.parse(config)
        except ValueError as error:
            raise RunRefused(str(error), "config") from error
    if idempotency_key and (earlier := Run.objects.filter(owner=owner, idempotency_key=idempotency_key).first()):
        return earlier, False
    try:
        with transaction.atomic():
            if quota:
                quotas.check_run_quota(owner)
            run = Run.objects.create(
                owner=owner,
                collection=collection,
                question=question.strip(),
                system=system,
                task=task,
                config=config.as_stored(),
                budget_s=settings.EVIDENCE_RUN_BUDGET_S if budget_s is None else budget_s,
                spend_cap_usd=settings.EVIDENCE_RUN_SPEND_CAP_USD if spend_cap_usd is None else spend_cap_usd,
                idempotency_key=idempotency_key or None,
                follows=follows,
            )
    except IntegrityError:
        # The same key raced in from a concurrent retry: that request's run is the one.
        earlier = Run.objects.filter(owner=owner, idempotency_key=idempotency_key).first() if idempotency_key else None
        if earlier is None:
            raise
        return earlier, False
    return run, True


def start_run(owner, collection: Collection, question: str, **options: Any) -> tuple[Run, bool]:
    """Create a run within the owner's quota and queue it for a worker; raise QueueDown if the queue is away."""
    run, created = create_run(owner, collection, question, **options)
    if not created:
        return run, False
    try:
        queueing.enqueue_run(run.pk)
    except Exception as error:  # the broker is down: a queued run nobody will take must not linger
        queueing.drop_unqueued(run.pk, error)
        raise QueueDown(queueing.QUEUE_DOWN) from error
    return run, True


# What a follow-up keeps of the run it follows: where to look and how to read, never a replay or a planner endpoint.
FOLLOW_UP_KEEPS = ("searcher", "scope_docids", "top_k", "answer_spans", "judge")


def follow_up_config(parent: Run, options: dict[str, Any] | None = None) -> RunConfig:
    """The configuration of a follow-up: the parent's collection scope and reading options (changed by `options`),
    and the thread so far (the parent's earlier turns, then the parent's own question and short answer)."""
    from ..run_state import MAX_EARLIER_TURNS, EarlierTurn, StoredAnswer

    kept = RunConfig.of(parent)
    data = {name: getattr(kept, name) for name in FOLLOW_UP_KEEPS if name in kept.model_fields_set}
    data.update(options or {})
    turn = EarlierTurn(question=parent.question[:2000], answer=StoredAnswer.of(parent).short_answer[:500])
    data["earlier"] = [t.model_dump() for t in [*kept.earlier, turn][-MAX_EARLIER_TURNS:]]
    return RunConfig.parse(data)


def start_follow_up(
    owner, parent: Run, question: str, options: dict[str, Any] | None = None, idempotency_key: str | None = None
) -> tuple[Run, bool]:
    """Ask a follow-up to one of the owner's runs: same collection, documents, system and task; the planner reads
    the new question in the light of the thread. Raises what start_run raises."""
    check_request(parent.collection, question)
    return start_run(
        owner, parent.collection, question, system=parent.system, task=parent.task,
        config=follow_up_config(parent, options), idempotency_key=idempotency_key, follows=parent,
    )  # fmt: skip


def thread_of(run: Run, limit: int = 20) -> list[Run]:
    """The runs of the thread holding `run`, oldest first: the runs it follows, then every follow-up after them."""
    root, seen = run, {run.pk}
    while root.follows_id and root.follows_id not in seen and len(seen) < limit:
        parent = Run.objects.filter(pk=root.follows_id, owner_id=run.owner_id).first()
        if parent is None:
            break
        seen.add(parent.pk)
        root = parent
    thread, frontier = [root], [root.pk]
    while frontier and len(thread) < limit:
        children = list(Run.objects.filter(follows_id__in=frontier, owner_id=run.owner_id).order_by("created_at"))
        thread += children[: limit - len(thread)]
        frontier = [c.pk for c in children]
    return thread if len(thread) > 1 else []


def execute_run(run_id: int, emit: Any = streams.emit, retry: bool = False) -> Run | None:
    """Claim a queued run and run it to its end status; a run already claimed or ended (a repeated task) is None.

    `retry`: this is the retry of a task that failed on a database error; a run it left running without a
    heartbeat is taken back (see claim_run).
    """
    from ..agent import run_claimed

    run = claim_run(run_id, retry=retry)
    if run is None:
        return None
    with heartbeat(run):
        return run_claimed(run, emit)


def heartbeat(run: Run) -> AbstractContextManager[None]:
    """Beat the run's heartbeat from a thread while this process runs it: a long step (a model call, a cold index
    load) is not a lost worker. The beats stop with the process, and once the run is far past its time budget, so
    a killed worker's run and a hung run are both reaped."""
    window = stale_window_s()
    budget = float(run.budget_s or settings.EVIDENCE_RUN_BUDGET_S)
    return streams.beating(
        f"run-{run.pk}-heartbeat",
        lambda: run_state.beat(run.pk, only_running=True),
        every_s=run_beat_every_s(),
        for_at_most_s=2 * budget + window,
    )


def run_beat_every_s() -> float:
    """How often a worker beats for the run it holds (see ingest.jobs.file_beat_every_s)."""
    return max(0.5, min(15.0, stale_window_s() / 4))


def run_here(run: Run, **options: Any) -> Run:
    """Execute a created run in this process (the CLI, evaluations, replays) and return it refreshed."""
    execute_run(run.pk, **options)
    run.refresh_from_db()
    return run


def cancel_run(run: Run) -> bool:
    """Cancel a queued or running run; return False when it had already ended.

    A queued run ends here (its task will find it claimed and do nothing); a running one is told through its
    status, which the loop reads at its next step and ends 'cancelled' with what it has.
    """
    if run_state.end_run(
        run.pk, Run.Status.CANCELLED, expected=[Run.Status.QUEUED], said="cancelled before it started"
    ):
        return True
    return run_state.ask_to_cancel(run.pk)


STALE_AFTER_S = 180


def stale_window_s() -> float:
    """Return how long a silent heartbeat means a lost worker (setting EVIDENCE_RUN_STALE_AFTER_S)."""
    return float(settings.EVIDENCE_RUN_STALE_AFTER_S)


def reclaim_after_s() -> float:
    """How long a running run's heartbeat must be silent before a retry of its own task takes it back: half the
    stale window (a live worker beats every quarter window). claim_run and reclaimable_in_s both read it."""
    return stale_window_s() / 2


def claim_run(run_id: int, retry: bool = False) -> Run | None:
    """Move a queued run to running; a run already claimed or finished (a repeated task) gives None.

    On the retry of a task that lost its database mid-run, a running run whose heartbeat stopped for over half the
    stale window is the retry's own (a live worker beats every quarter window): it is claimed again and rerun.
    """
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return None
        silent_since = timezone.now() - timedelta(seconds=reclaim_after_s())
        stranded = (
            retry
            and run.status == Run.Status.RUNNING
            and (run.heartbeat_at or run.started_at or timezone.now()) < silent_since
        )
        if run.status != Run.Status.QUEUED and not stranded:
            return None
        run_state.mark_running(run)  # alive from the claim on, not from its first step
    return run


def reclaimable_in_s(run_id: int) -> float | None:
    """Seconds until a running run's heartbeat is old enough for a retry to take it back (claim_run), or None when
    the run is not running.

    A retry that comes soon after a short database outage finds its own run still looking alive: it waits this long
    and tries again, so the run resumes within half the stale window instead of being reaped as lost.
    """
    run = Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).only("heartbeat_at", "started_at").first()
    if run is None:
        return None
    last = run.heartbeat_at or run.started_at or timezone.now()
    return max(1.0, (last - timezone.now()).total_seconds() + reclaim_after_s() + 1.0)


def reap_stale_runs(stale_after_s: float | None = None, run_id: int | None = None) -> list[int]:
    """Mark running runs whose heartbeat stopped (their worker died) as failed, keeping their trajectory."""
    from ..agent.core import Trajectory

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
        if run_state.end_run(
            run.pk, Run.Status.FAILED, expected=[Run.Status.RUNNING],
            error="The worker running this run stopped (its heartbeat was lost); the trajectory so far is kept.",
            said="worker lost", details={"funnel": Trajectory.from_dict(run.trajectory).counts()},
        ):  # fmt: skip
            reaped.append(run.pk)
    return reaped
