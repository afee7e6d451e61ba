"""Turn stored runs into TREC lines, QASPER predictions and BrowseComp-Plus run objects (formats in run_formats.py)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..models import Document, Run
from ..run_state import StoredAnswer
from .benchmarks import cited_spans, evidence_paragraphs, ranking_of
from .metrics_qasper import qasper_prediction
from .run_formats import NUMERIC, browsecomp_run, renumber_citations

# The tool calls a run's events record, in the order they happened (the answer is the last result item).
TOOL_EVENTS = ("search", "read_search_results", "read_document", "request_evidence")


def run_ranking(run: Run) -> list[tuple[str, float]]:
    """Return (docid, score) best first: the answer's ranking with its estimates, else the first search."""
    ranking = StoredAnswer.of(run).ranked_docids()
    if ranking:
        return ranking
    first = run.searches.order_by("id").first()
    if first is not None:
        return [(str(docid), float(score)) for docid, score, _ in first.ranking]
    return [(docid, 0.0) for docid in ranking_of(run)]


def qasper_row(run: Run, qid: str) -> tuple[str, str, list[str]]:
    """Return (qid, predicted answer, predicted evidence paragraphs) exactly as Qasper.score reads the run."""
    stored = StoredAnswer.of(run)
    return qid, qasper_prediction(stored.outcome, stored.short_answer), evidence_paragraphs(cited_spans(run))


# ------------------------------------------------------------------ BrowseComp-Plus


def export_ids(collection_id: int) -> dict[str, str]:
    """Return each docid as an export writes it: itself in an all-numeric collection, else its document number."""
    rows = Document.objects.filter(collection_id=collection_id).values_list("docid", "pk")
    pairs = list(rows)
    if all(NUMERIC.match(docid) for docid, _ in pairs):
        return {docid: docid for docid, _ in pairs}
    return {docid: str(pk) for docid, pk in pairs}


# Our tools under BrowseComp-Plus's names: its extractor reads retrieved docids from the outputs of tools named
# like "search" (a list of {docid, score, snippet}), and its agents have only `search` and `get_document`.
OFFICIAL_TOOL = {"search": "search", "read_search_results": "search", "read_document": "get_document",
                 "request_evidence": "get_document"}  # fmt: skip


def _tool_steps(kind: str, payload: Mapping[str, Any], ids: Mapping[str, str]) -> list[dict[str, Any]]:
    """Return the `tool_call` result items of one event (arguments and output as JSON text, as the official
    writer stores them), under the official tool names; System 1 reading several documents is one get_document
    per document."""

    def as_id(docid: Any) -> str:
        return ids.get(str(docid), str(docid))

    def item(arguments: dict[str, Any], output: Any) -> dict[str, Any]:
        return {
            "type": "tool_call",
            "tool_name": OFFICIAL_TOOL[kind],
            "our_tool_name": kind,
            "arguments": json.dumps(arguments, ensure_ascii=False),
            "output": json.dumps(output, ensure_ascii=False),
        }

    if kind == "search":
        arguments = {"reason": payload.get("reason", ""), "query": payload.get("query", "")}
        hits = [{"docid": as_id(hit.get("docid")), "score": hit.get("score"), "snippet": hit.get("excerpt", "")}
                for hit in payload.get("top") or []]  # fmt: skip
        return [item(arguments, hits)]
    if kind == "read_search_results":
        arguments = {k: payload.get(k) for k in ("reason", "search_id", "offset", "limit")}
        return [item(arguments, [{"docid": as_id(d)} for d in payload.get("docids") or []])]
    if kind == "read_document":
        first, last, total = [*(payload.get("lines") or []), 0, 0, 0][:3]
        docid = as_id(payload.get("docid"))
        arguments = {"reason": payload.get("reason", ""), "docid": docid, "offset": first,
                     "limit": max(1, last - first + 1)}  # fmt: skip
        return [item(arguments, {"docid": docid, "lines": [first, last, total]})]
    delivered = payload.get("delivered") or []  # request_evidence
    steps = []
    for docid in dict.fromkeys(str(d) for d in payload.get("docids") or []):
        spans = [{**span, "docid": as_id(docid)} for span in delivered if str(span.get("docid")) == docid]
        arguments = {"docid": as_id(docid), "sub_questions": list(payload.get("sub_questions") or [])}
        steps.append(item(arguments, {"docid": as_id(docid), "evidence": spans}))
    return steps


def searched_docids(steps: list[dict[str, Any]]) -> list[str]:
    """The docids the run's search outputs listed, in first-seen order (what BrowseComp-Plus counts as retrieved)."""
    found: list[str] = []
    for step in steps:
        if step["tool_name"] == "search":
            found += [str(hit["docid"]) for hit in json.loads(step["output"])]
    return list(dict.fromkeys(found))


def browsecomp_for(run: Run, query_id: str, ids: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return the BrowseComp-Plus run object of one run (status 'completed' when it answered).

    `result` holds the run's tool calls in order under the official tool names (ours in `our_tool_name`), then
    the answer; `retrieved_docids` are the documents the search outputs listed, as the official extractor reads
    them from `result`.
    """
    events = list(run.events.filter(kind__in=TOOL_EVENTS).order_by("seq").values_list("kind", "payload"))
    stored = StoredAnswer.of(run)
    if ids is None:
        ids = export_ids(run.collection_id)
    text = ""
    if stored.explanation:
        confidence = stored.confidence or 0.0
        # Only the run's own citations are markers: in a collection of numbered documents a quoted "[12]" (the
        # paper's reference 12) is also a docid of the collection, and must not read as a citation.
        cited = set(run.citations.values_list("span__document__docid", flat=True))
        markers = {docid: number for docid, number in ids.items() if docid in cited}
        text = (
            f"Explanation: {renumber_citations(stored.explanation, markers)}\n"
            f"Exact Answer: {renumber_citations(stored.exact_answer, {})}\n"
            f"Confidence: {confidence:.0%}"
        )
    steps = [step for kind, payload in events for step in _tool_steps(kind, payload or {}, ids)]
    return browsecomp_run(
        query_id=query_id,
        answer=text,
        retrieved_docids=searched_docids(steps),
        tool_call_counts=Counter(step["tool_name"] for step in steps),
        status="completed" if run.status == Run.Status.ANSWERED else run.status,
        steps=steps,
        metadata={"model": (run.config or {}).get("model") or f"evidence-desk-{run.system}", "run_id": run.pk},
        usage={"calls": run.calls, "cost_usd": run.spent_usd},
    )
