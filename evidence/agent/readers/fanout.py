"""System 1 localization fanned out across workers: one Celery task per batch of 10 units and sub-question.

The run's own worker never just waits: a batch no other worker has started within a short grace period is
revoked and judged in place, so a busy (or single) worker cannot deadlock a run; batches merge in order, so
the outcome does not depend on which worker judged what.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from celery import current_task
from django.conf import settings

from ...judge import BATCH_UNITS, MAX_SUB_QUESTIONS, EvidenceSpan, Judge, Localization, Unit, localize_batch
from ..core import JudgeSpec, UnitRef, load_units_by_ref, unit_ref
from .executor import remote

GRACE_S = 1.5  # how long a queued batch may wait for another worker before it is judged in place


def batches(sub_questions: Sequence[str], units: Sequence[Unit]) -> list[tuple[str, list[Unit]]]:
    goals = list(dict.fromkeys(sub_questions))[:MAX_SUB_QUESTIONS]
    return [(goal, list(units[i : i + BATCH_UNITS])) for goal in goals for i in range(0, len(units), BATCH_UNITS)]


def localize_fanned_out(
    judge: Judge,
    judge_spec: JudgeSpec,
    collection_id: int,
    sub_questions: Sequence[str],
    units: Sequence[Unit],
    timeout_s: float = 60.0,
    options: dict[str, Any] | None = None,
) -> Localization:
    """Localize like judge.localize.localize, in parallel Celery tasks when running inside a worker."""
    work = batches(sub_questions, units)
    options = dict(options or {})
    judge_batch = remote("judge_batch")
    use_workers = settings.EVIDENCE_JUDGE_FANOUT and current_task and judge_batch and len(work) > 1
    if not use_workers:
        return merge([localize_batch(judge, goal, batch, **options) for goal, batch in work])
    pending = [
        judge_batch.apply_async(
            (judge_spec.as_json(), collection_id, goal, [unit_ref(unit) for unit in batch], options),
            queue=settings.EVIDENCE_JUDGE_QUEUE,
        )
        for goal, batch in work
    ]
    results: list[Localization] = []
    deadline = time.monotonic() + timeout_s
    by_workers = 0
    for (goal, batch), result in zip(work, pending, strict=True):
        part, by_worker = collect(
            result, lambda goal=goal, batch=batch: localize_batch(judge, goal, batch, **options), deadline
        )
        results.append(part)
        by_workers += by_worker
    merged = merge(results)
    merged.judgments.append({"kind": "fanout", "batches": len(work), "by_workers": by_workers})
    return merged


def collect(result: Any, inline: Any, deadline: float) -> tuple[Localization, bool]:
    """Take a batch's result from its worker, or judge it here when no worker picked it up in time."""
    grace = time.monotonic() + GRACE_S
    while True:
        if result.ready():
            if result.successful():
                return from_json(result.get(disable_sync_subtasks=False)), True
            return inline(), False
        if (result.state == "PENDING" and time.monotonic() > grace) or time.monotonic() > deadline:
            result.revoke()
            return inline(), False
        time.sleep(0.02)


def merge(parts: Sequence[Localization]) -> Localization:
    out = Localization()
    for part in parts:
        out.spans.extend(part.spans)
        out.judgments.extend(part.judgments)
    return out


def to_json(localization: Localization) -> dict[str, Any]:
    return {
        "spans": [
            [s.docid, s.start, s.end, s.quote, s.page, s.probability, s.choice_probability, s.sub_question, s.kind]
            for s in localization.spans
        ],
        "judgments": localization.judgments,
    }


def from_json(data: dict[str, Any]) -> Localization:
    return Localization(spans=[EvidenceSpan(*row) for row in data["spans"]], judgments=list(data["judgments"]))


def judge_batch_locally(
    judge: Judge, block_kind: str, collection_id: int, goal: str, refs: Sequence[UnitRef], options: dict[str, Any]
) -> dict[str, Any]:
    """Judge one batch in a worker: reload its units and localize (no database writes)."""
    units = load_units_by_ref(collection_id, [tuple(ref) for ref in refs], block_kind)  # type: ignore[misc]
    return to_json(localize_batch(judge, goal, units, **options))
