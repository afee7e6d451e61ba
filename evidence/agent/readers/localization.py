"""System 1 localization as a reader step: the plan's sub-questions over candidate units (fanned out to the
workers when the run is in one), each unit judged once per run; what it finds is recorded and delivered."""

from __future__ import annotations

from typing import Any

from ...judge import MAX_UNITS_PER_REQUEST, EvidenceSpan, Unit
from ..core import Plan, RunContext, unit_key
from .fanout import localize_fanned_out


def request_evidence(
    ctx: RunContext, plan: Plan, units: list[Unit], options: dict[str, Any] | None = None
) -> list[EvidenceSpan]:
    """System 1 localization of the plan's sub-questions over candidate units; deliver what it finds."""
    units = [u for u in units if unit_key(u) not in ctx.judged][:MAX_UNITS_PER_REQUEST]
    if not units or ctx.judge is None:
        return []
    ctx.judged.update(unit_key(u) for u in units)
    ctx.log("reading", {"docids": list(dict.fromkeys(u.docid for u in units))})  # the page's "reading N…" line
    result = localize_fanned_out(
        ctx.judge,
        ctx.judge_spec,
        ctx.run.collection_id,
        plan.sub_questions,
        units,
        timeout_s=max(5.0, ctx.clock.remaining()),
        options=options or ctx.config.localize.as_kwargs(),
    )
    best: dict[str, float] = {}
    for judgment in result.judgments:
        if judgment["kind"] == "fanout":
            ctx.log("judge_batches", {"batches": judgment["batches"], "by_workers": judgment["by_workers"]})
        elif judgment["kind"] == "noul":
            docid = str(judgment["docid"])
            best[docid] = max(best.get(docid, 0.0), float(judgment["p"]))  # type: ignore[arg-type]
    ctx.recorder.judgments(plan.question, units, best, result.spans, provider=ctx.judge_spec.name)
    delivered = ctx.recorder.deliver(sorted(result.spans, key=lambda s: -s.probability))
    # The call itself, as a tool call of System 2 (exports list it beside search and read calls).
    ctx.log(
        "request_evidence",
        {
            "docids": list(dict.fromkeys(u.docid for u in units)),
            "sub_questions": list(plan.sub_questions),
            "delivered": [{"docid": s.docid, "start": s.start, "end": s.end} for s in delivered],
        },
    )
    return delivered
