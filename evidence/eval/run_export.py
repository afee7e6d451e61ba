"""Turn stored runs into TREC lines, QASPER predictions and BrowseComp-Plus run objects (formats in exports.py)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..models import Document, Run
from .benchmarks import cited_spans, evidence_paragraphs, ranking_of
from .exports import NUMERIC, browsecomp_run, renumber_citations

# The tool calls a run's events record, in the order they happened (the answer is the last result item).
TOOL_EVENTS = ("search", "read_search_results", "read_document", "request_evidence")
SHOWN_STAGES = ("previewed", "opened", "delivered")  # what the model saw: shown hits, opened and delivered documents


def run_ranking(run: Run) -> list[tuple[str, float]]:
    """Return (docid, score) best first: the answer's ranking with its estimates, else the first search."""
    ranking = run.answer.get("ranking") or []
    if ranking:
        return [(str(item["docid"]), float(item.get("p", 0.0))) for item in ranking]
    first = run.searches.order_by("id").first()
    if first is not None:
        return [(str(docid), float(score)) for docid, score, _ in first.ranking]
    return [(docid, 0.0) for docid in ranking_of(run)]


def qasper_row(run: Run, qid: str) -> tuple[str, str, list[str]]:
    """Return (qid, predicted answer, predicted evidence paragraphs) exactly as Qasper.score reads the run."""
    return qid, str((run.answer or {}).get("exact_answer") or ""), evidence_paragraphs(cited_spans(run))


# ------------------------------------------------------------------ BrowseComp-Plus


def export_ids(collection_id: int) -> dict[str, str]:
    """Return each docid as an export writes it: itself in an all-numeric collection, else its document number."""
    rows = Document.objects.filter(collection_id=collection_id).values_list("docid", "pk")
    pairs = list(rows)
    if all(NUMERIC.match(docid) for docid, _ in pairs):
        return {docid: docid for docid, _ in pairs}
    return {docid: str(pk) for docid, pk in pairs}


def _tool_step(kind: str, payload: Mapping[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """Return one `tool_call` result item (arguments and output as JSON text, as the official writer stores them)."""

    def as_id(docid: Any) -> str:
        return ids.get(str(docid), str(docid))

    if kind == "search":
        arguments = {"reason": payload.get("reason", ""), "query": payload.get("query", "")}
        output: Any = {
            "search_id": payload.get("search_id"),
            "total": payload.get("total"),
            "shown": [as_id(entry.get("docid")) for entry in payload.get("top") or []],
        }
    elif kind == "read_search_results":
        arguments = {k: payload.get(k) for k in ("reason", "search_id", "offset", "limit")}
        output = {"shown": [as_id(d) for d in payload.get("docids") or []]}
    elif kind == "read_document":
        first, last, total = [*(payload.get("lines") or []), 0, 0, 0][:3]
        arguments = {
            "reason": payload.get("reason", ""),
            "docid": as_id(payload.get("docid")),
            "offset": first,
            "limit": max(1, last - first + 1),
        }
        output = f"[docid={as_id(payload.get('docid'))} lines {first}-{last} of {total}]"
    else:  # request_evidence
        arguments = {
            "docids": [as_id(d) for d in payload.get("docids") or []],
            "sub_questions": list(payload.get("sub_questions") or []),
        }
        output = {"delivered": [{**span, "docid": as_id(span.get("docid"))} for span in payload.get("delivered") or []]}
    return {
        "type": "tool_call",
        "tool_name": kind,
        "arguments": json.dumps(arguments, ensure_ascii=False),
        "output": output if isinstance(output, str) else json.dumps(output, ensure_ascii=False),
    }


def browsecomp_for(run: Run, query_id: str, ids: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return the BrowseComp-Plus run object of one run (status 'completed' when it answered).

    `retrieved_docids` are the documents shown to the model (previewed hits, opened and delivered documents),
    not every surfaced one; `result` holds the run's tool calls in order, then the answer.
    """
    trajectory = run.trajectory or {}
    shown = list(dict.fromkeys(d for stage in SHOWN_STAGES for d in trajectory.get(stage, [])))
    events = list(run.events.filter(kind__in=TOOL_EVENTS).order_by("seq").values_list("kind", "payload"))
    answer = run.answer or {}
    if ids is None:
        ids = export_ids(run.collection_id)
    text = ""
    if answer.get("explanation"):
        confidence = float(answer.get("confidence") or 0.0)
        text = (
            f"Explanation: {renumber_citations(str(answer['explanation']), ids)}\n"
            f"Exact Answer: {answer.get('exact_answer', '')}\nConfidence: {confidence:.0%}"
        )
    return browsecomp_run(
        query_id=query_id,
        answer=text,
        retrieved_docids=[ids.get(d, d) for d in shown],
        tool_call_counts=Counter(kind for kind, _ in events),
        status="completed" if run.status == Run.Status.ANSWERED else run.status,
        steps=[_tool_step(kind, payload or {}, ids) for kind, payload in events],
        metadata={"model": (run.config or {}).get("model") or f"evidence-desk-{run.system}", "run_id": run.pk},
        usage={"calls": run.calls, "cost_usd": run.spent_usd},
    )
