"""A run as the browser shows it: timeline entries, live metrics, the answer with citation links."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count
from django.template.loader import render_to_string

from ..agent.trajectory import STAGES
from ..models import Citation, Document, Run, RunEvent, Span

KNOWN_KINDS = {
    "status",
    "plan",
    "search",
    "read_search_results",
    "read_document",
    "tool_error",
    "judgment",
    "lead",
    "mining",
    "paper_reading",
    "paragraph_pair",
    "evidence",
    "review",
    "answer",
    "finished",
}
MARKER = re.compile(r"\[([^\[\]]{1,200})\]")


@dataclass
class Entry:
    """One timeline step: the event plus what its template needs (titles, offsets into the run, span links)."""

    seq: int
    kind: str
    payload: dict[str, Any]
    at_s: float | None
    title: str = ""
    span_id: int | None = None
    known: bool = True
    extra: list[tuple[str, Any]] = field(default_factory=list)


def entries(run: Run, events: list[RunEvent]) -> list[Entry]:
    """Prepare events for the timeline template in one query for titles and one for span links."""
    docids = {str(e.payload.get("docid")) for e in events if e.payload.get("docid")}
    titles = dict(
        Document.objects.filter(collection_id=run.collection_id, docid__in=docids).values_list("docid", "title")
    )
    spans = {}
    if any(e.kind == "evidence" for e in events):
        spans = {
            (docid, start, end): pk
            for pk, docid, start, end in Span.objects.filter(run=run).values_list(
                "pk", "document__docid", "start", "end"
            )
        }
    result = []
    for event in events:
        payload = event.payload or {}
        docid = str(payload.get("docid", ""))
        at = (event.created_at - run.started_at).total_seconds() if run.started_at else None
        entry = Entry(
            seq=event.seq,
            kind=event.kind,
            payload=payload,
            at_s=at,
            title=str(payload.get("title") or titles.get(docid, "")),
            known=event.kind in KNOWN_KINDS,
        )
        if event.kind == "evidence":
            entry.span_id = spans.get((docid, payload.get("start"), payload.get("end")))
        if not entry.known:
            entry.extra = sorted(payload.items())
        result.append(entry)
    return result


def metrics(run: Run) -> dict[str, Any]:
    """Status, time against budget, spend against cap, calls and the funnel (live counts while running)."""
    elapsed = run.elapsed_s or 0.0
    kinds = dict(RunEvent.objects.filter(run=run).values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    if run.is_finished and run.trajectory:
        funnel = [(stage, len(run.trajectory.get(stage, []))) for stage in STAGES]
    else:
        funnel = [
            ("searches", kinds.get("search", 0)),
            ("documents opened", kinds.get("read_document", 0)),
            ("judgments", kinds.get("judgment", 0)),
            ("spans delivered", kinds.get("evidence", 0)),
        ]
    return {
        "run": run,
        "elapsed_s": elapsed,
        "elapsed_pct": _pct(elapsed, run.budget_s),
        "spend_pct": _pct(run.spent_usd, run.spend_cap_usd),
        "funnel": funnel,
        "funnel_final": run.is_finished and bool(run.trajectory),
    }


def _pct(value: float, limit: float) -> int:
    return int(min(100, max(0, 100 * value / limit))) if limit else 0


@dataclass
class AnswerPiece:
    text: str
    citation: Citation | None = None
    number: int | None = None
    marker: str = ""


def answer_pieces(run: Run, citations: list[Citation]) -> list[AnswerPiece]:
    """Split the explanation into text and [docid] markers, each marker linked to its citation's span.

    The n-th occurrence of a docid's marker links the n-th citation carrying that marker (the order the
    loop writes them); a marker with no citation stays plain text, never a guessed link.
    """
    explanation = str((run.answer or {}).get("explanation", ""))
    by_marker: dict[str, list[Citation]] = {}
    for citation in citations:
        by_marker.setdefault(citation.marker, []).append(citation)
    numbers = {citation.pk: index for index, citation in enumerate(citations, start=1)}
    used: dict[str, int] = {}
    pieces: list[AnswerPiece] = []
    position = 0
    for match in MARKER.finditer(explanation):
        if match.start() > position:
            pieces.append(AnswerPiece(explanation[position : match.start()]))
        for docid in re.split(r"\s*,\s*", match.group(1).strip()):
            marker = f"[{docid.removeprefix('docid=').strip()}]"
            candidates = by_marker.get(marker, [])
            if not candidates:
                pieces.append(AnswerPiece(marker, marker=marker))
                continue
            index = min(used.get(marker, 0), len(candidates) - 1)
            used[marker] = index + 1
            citation = candidates[index]
            pieces.append(AnswerPiece(marker, citation=citation, number=numbers[citation.pk], marker=marker))
        position = match.end()
    if position < len(explanation):
        pieces.append(AnswerPiece(explanation[position:]))
    return pieces


def run_citations(run: Run) -> list[Citation]:
    return list(Citation.objects.filter(run=run).select_related("span__document").order_by("answer_part", "id"))


def sse_message(event: str, html: str, event_id: int | None = None) -> str:
    """Format one server-sent event; every line of the HTML becomes a data line."""
    lines = html.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    head = f"id: {event_id}\n" if event_id is not None else ""
    return head + f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def render_entries(run: Run, items: list[Entry]) -> str:
    return "".join(render_to_string("evidence/_event.html", {"entry": e, "run": run}) for e in items)


def render_metrics(run: Run) -> str:
    return render_to_string("evidence/_metrics.html", metrics(run))
