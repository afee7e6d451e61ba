"""Compare two runs: citations shared / only A / only B by (docid, start, end), funnels, cost, time, calls."""

from __future__ import annotations

from typing import Any

from ..agent.core import STAGES
from ..models import Citation, Run
from ..run_state import StoredAnswer

CitationKey = tuple[str, int, int]


def citation_keys(run: Run) -> list[CitationKey]:
    """Return the run's cited spans as (docid, start, end), in answer order, without repeats."""
    rows = (
        Citation.objects.filter(run=run)
        .order_by("answer_part", "id")
        .values_list("span__document__docid", "span__start", "span__end")
    )
    return list(dict.fromkeys((docid, start, end) for docid, start, end in rows))


def split_keys(a: list[CitationKey], b: list[CitationKey]) -> dict[str, list[CitationKey]]:
    """Group two citation lists: shared, only in A, only in B (each in its own run's order)."""
    in_b = set(b)
    in_a = set(a)
    return {
        "shared": [k for k in a if k in in_b],
        "only_a": [k for k in a if k not in in_b],
        "only_b": [k for k in b if k not in in_a],
    }


def funnel(run: Run) -> dict[str, int]:
    """Return the recall funnel counts (surfaced → cited) of a run's trajectory."""
    trajectory = run.trajectory or {}
    return {stage: len(trajectory.get(stage, [])) for stage in STAGES}


def summary(run: Run) -> dict[str, Any]:
    """Return the side-by-side facts of one run: status, answer, cost, time, calls, events, funnel."""
    return {
        "run_id": run.pk,
        "status": run.status,
        "system": run.system,
        "question": run.question,
        "exact_answer": StoredAnswer.of(run).exact_answer,
        "spent_usd": run.spent_usd,
        "calls": run.calls,
        "elapsed_s": run.elapsed_s,
        "events": run.last_seq,
        "funnel": funnel(run),
    }


def compare(a: Run, b: Run) -> dict[str, Any]:
    """Return the comparison of two runs (B minus A in `difference`)."""
    left, right = summary(a), summary(b)
    groups = split_keys(citation_keys(a), citation_keys(b))

    def minus(field: str) -> float | None:
        if left[field] is None or right[field] is None:
            return None
        return round(float(right[field]) - float(left[field]), 6)

    return {
        "a": left,
        "b": right,
        **{name: [{"docid": d, "start": s, "end": e} for d, s, e in keys] for name, keys in groups.items()},
        "difference": {
            "spent_usd": minus("spent_usd"),
            "calls": minus("calls"),
            "elapsed_s": minus("elapsed_s"),
            "events": minus("events"),
        },
    }
