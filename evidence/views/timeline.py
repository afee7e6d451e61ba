"""A run as the browser shows it: timeline entries, live metrics, the answer with citation links."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count
from django.template.loader import render_to_string

from ..agent.core import PROGRESS, STAGES
from ..models import Document, Run, RunEvent, Span
from .step_words import count, detail, extra, headline, number, quoted

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
    "judge_batches",
    "request_evidence",
    "fallback",
    "steer",
    "citations_dropped",
    "reading",
    "reader",
}
# The step filter's groups: searches (what was looked for and opened), reading (System 1 judging documents)
# and evidence (raw spans found); anything else (status, answer, new kinds) shows under "all" only.
GROUPS = {
    "plan": "search", "search": "search", "read_search_results": "search", "read_document": "search",
    "judgment": "reading", "judge_batches": "reading", "request_evidence": "reading", "lead": "reading",
    "mining": "reading", "fallback": "reading", "reading": "reading", "reader": "reading",
    "evidence": "evidence", "paper_reading": "evidence", "paragraph_pair": "evidence",
}  # fmt: skip
# Steps whose details are long and whose headline says enough: shown folded.
FOLDED = {"judgment", "read_search_results", "judge_batches", "lead", "status", "plan", "request_evidence"}


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
    extra: list[tuple[str, str]] = field(default_factory=list)
    headline: str = ""
    detail: str = ""
    group: str = "other"
    folded: bool = False
    documents: list[str] = field(default_factory=list)  # the titles of the documents a step names in "docids"


def _listed(payload: dict[str, Any] | None) -> list[Any]:
    """The document ids a step lists (its "docids"), [] when it lists none."""
    docids = (payload or {}).get("docids")
    return list(dict.fromkeys(docids)) if isinstance(docids, list) else []


def entries(run: Run, events: list[RunEvent]) -> list[Entry]:
    """Prepare events for the timeline template in one query for titles and one for span links (progress events
    are not steps: the metrics panel shows the latest as what the run is doing)."""
    events = [e for e in events if e.kind != PROGRESS]
    docids = {str(e.payload.get("docid")) for e in events if e.payload.get("docid")}
    docids |= {str(d) for e in events for d in _listed(e.payload)}
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
    searched = searched_queries(events) if run.is_finished else {}
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
            group=GROUPS.get(event.kind, "other"),
            folded=event.kind in FOLDED,
            documents=[titles.get(str(d)) or str(d) for d in _listed(payload)],
        )
        entry.headline = headline(event.kind, payload, entry.title, searched.get(event.seq))
        entry.detail = detail(event.kind, payload)
        if event.kind == "evidence":
            entry.span_id = spans.get((docid, payload.get("start"), payload.get("end")))
        if not entry.known:
            entry.extra = extra(payload)
        result.append(entry)
    return result


def searched_queries(events: list[RunEvent]) -> dict[int, int]:
    """For each plan step, how many of its queries a later search ran (before the next plan)."""
    found: dict[int, int] = {}
    plan: RunEvent | None = None
    run_queries: set[str] = set()
    for event in [*events, None]:
        if event is None or event.kind == "plan":
            if plan is not None:
                queries = {str(q) for q in (plan.payload or {}).get("queries") or []}
                found[plan.seq] = len(queries & run_queries)
            plan, run_queries = event, set()
        elif event.kind == "search":
            run_queries.add(str((event.payload or {}).get("query")))
    return found


def metrics(run: Run) -> dict[str, Any]:
    """Status, time against budget, spend against cap, calls and the funnel (live counts while running)."""
    elapsed = run.elapsed_s or 0.0
    kinds = dict(RunEvent.objects.filter(run=run).values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    if run.is_finished and run.trajectory:
        funnel = [(*STAGE_WORDS[stage], len(run.trajectory.get(stage, []))) for stage in STAGES]
    else:
        funnel = [
            ("searches run", "Searches the planner has run so far.", kinds.get("search", 0)),
            ("read by the planner", "Documents the planner opened and read itself.", kinds.get("read_document", 0)),
            ("judged by the fast reader", "Documents the fast reader has read and scored.", kinds.get("judgment", 0)),
            ("evidence spans found", "Raw spans the fast reader handed to the planner.", kinds.get("evidence", 0)),
        ]
    return {
        "run": run,
        "now": None if run.is_finished else now_doing(run),
        "elapsed_s": elapsed,
        "elapsed_pct": _pct(elapsed, run.budget_s),
        "spend_pct": _pct(run.spent_usd, run.spend_cap_usd),
        # Spend and model calls mean something only when a paid model ran: an offline run shows neither.
        "paid": bool(run.calls or run.spent_usd),
        "funnel": funnel,
        "funnel_final": run.is_finished and bool(run.trajectory),
    }


# The recall funnel's stages in words that cannot read as a contradiction: "opened" (the planner read the
# document itself) can be 0 while System 1 read six; each says who did what, and the hover says more.
STAGE_WORDS = {
    "surfaced": ("ranked by a search", "Documents any search ranked, at any depth."),
    "previewed": ("shown in results", "Documents whose title and excerpt the planner was shown in search results."),
    "opened": (
        "read by the planner",
        "Documents the planner (System 2) opened and read itself; the fast reader reads others.",
    ),
    "inspected": ("read by the fast reader", "Documents the fast reader (System 1) read looking for evidence."),
    "delivered": ("gave evidence", "Documents with at least one raw span handed to the planner as evidence."),
    "cited": ("cited in the answer", "Documents the final answer cites."),
}
# What the run is doing after its latest step, shown live until the next step arrives (a search in the
# dual system is followed by System 1 reading its top documents, which can take seconds with no event).
AFTER_STEP = {
    "status": "Planning the searches…",
    "plan": "Searching…",
    "search": "Choosing what to read…",
    "read_search_results": "Choosing what to read…",
    "read_document": "Reading…",
    "judgment": "The fast reader is reading…",
    "evidence": "Weighing the evidence…",
    "lead": "Following leads…",
    "answer": "Finishing…",
}


def now_doing(run: Run) -> str:
    """Say what a running run is doing now, from its latest step ('' before the worker starts)."""
    last = RunEvent.objects.filter(run=run).order_by("-seq").only("kind", "payload").first()
    if last is None:
        return "Waiting for a worker…"
    payload = last.payload or {}
    if last.kind == PROGRESS:
        return progress_words(payload)
    if last.kind == "reading":
        return f"Reading {count(len(payload.get('docids') or []), 'document')}…"
    if last.kind == "search" and run.system == "dual" and payload.get("top"):
        return f"The fast reader is reading the top documents of {quoted(payload.get('query'), 60)}…"
    return AFTER_STEP.get(last.kind, "Working…")


def progress_words(payload: dict[str, Any]) -> str:
    """A progress event in words: "Preparing the sentences of “X” for reading: 120 of 412…", or the step the run
    is still in ("The fast reader is reading… (still working)")."""
    what, done, total = payload.get("what"), payload.get("done"), payload.get("total")
    if what:
        counted = f": {number(done)} of {number(total)}" if isinstance(total, int) and isinstance(done, int) else ""
        return f"{what}{counted}…"
    return f"{AFTER_STEP.get(str(payload.get('after', '')), 'Working…')} (still working)"


def _pct(value: float, limit: float) -> int:
    return int(min(100, max(0, 100 * value / limit))) if limit else 0


def sse_message(event: str, html: str, event_id: int | None = None) -> str:
    """Format one server-sent event; every line of the HTML becomes a data line."""
    lines = html.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    head = f"id: {event_id}\n" if event_id is not None else ""
    return head + f"event: {event}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


def render_entries(run: Run, items: list[Entry]) -> str:
    return "".join(render_to_string("evidence/_event.html", {"entry": e, "run": run}) for e in items)


def render_metrics(run: Run) -> str:
    return render_to_string("evidence/_metrics.html", metrics(run))
