"""Turn stored runs into TREC lines and BrowseComp-Plus run objects (the formats live in exports.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..models import Run
from .benchmarks import ranking_of
from .exports import browsecomp_run

TOOL_EVENTS = {"search", "read_search_results", "read_document", "judgment"}


def run_ranking(run: Run) -> list[tuple[str, float]]:
    """Return (docid, score) best first: the answer's ranking with its estimates, else the first search."""
    ranking = run.answer.get("ranking") or []
    if ranking:
        return [(str(item["docid"]), float(item.get("p", 0.0))) for item in ranking]
    first = run.searches.order_by("id").first()
    if first is not None:
        return [(str(docid), float(score)) for docid, score, _ in first.ranking]
    return [(docid, 0.0) for docid in ranking_of(run)]


def browsecomp_for(run: Run, query_id: str) -> dict[str, Any]:
    """Return the BrowseComp-Plus run object of one run (status 'completed' when it answered)."""
    kinds = Counter(run.events.filter(kind__in=TOOL_EVENTS).values_list("kind", flat=True))
    counts = {name: kinds[name] for name in ("search", "read_search_results", "read_document") if kinds[name]}
    if run.system == "dual":
        counts["request_evidence"] = kinds["judgment"]
    answer = run.answer or {}
    text = ""
    if answer.get("explanation"):
        confidence = float(answer.get("confidence") or 0.0)
        text = (
            f"Explanation: {answer['explanation']}\nExact Answer: {answer.get('exact_answer', '')}\n"
            f"Confidence: {confidence:.0%}"
        )
    return browsecomp_run(
        query_id=query_id,
        answer=text,
        retrieved_docids=run.trajectory.get("surfaced", []),
        tool_call_counts=counts,
        status="completed" if run.status == Run.Status.ANSWERED else run.status,
        metadata={"model": (run.config or {}).get("model") or f"evidence-desk-{run.system}", "run_id": run.pk},
        usage={"calls": run.calls, "cost_usd": run.spent_usd},
    )
