"""The four systems on the same retrieval (SPEC 5), driven by the offline planner.

single_pass: one search, the top k read by a plain scorer. review_loop (seed 002): answer, review, refine
the query, up to 3 rounds. pi_serini: the three tools, no System 1. dual: the tools plus System 1
(localization with sub-questions, evidence mining, relevance assessment for ranking).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from ..judge.localize import MAX_UNITS_PER_REQUEST, EvidenceSpan
from ..judge.mining import mine_qa
from ..judge.relevance import assess_relevance
from ..judge.types import Judge, Unit
from ..models import Run
from ..retrieval.types import Hit
from .answer import Answer, compose_extractive
from .budget import TimeBudget
from .fanout import localize_fanned_out
from .heuristic import heuristic_spans
from .planner import Plan, make_plan, refine_query
from .tools import ResearchTools, ToolError
from .trajectory import Trajectory
from .units import load_units

SUPPORTED = 0.8  # a span this probable settles the question
RERANK_DEPTH = 100  # System 1 grades the top 100 for the ranking task
EVIDENCE_DOCS = 3  # and localizes evidence in the top 3
SCOPED_PASSAGE_LIMIT = 3
MAX_ROUNDS = 3


@dataclass
class RunContext:
    run: Run
    trajectory: Trajectory
    tools: ResearchTools
    clock: TimeBudget
    emit: Callable[..., Any]
    judge: Judge | None = None
    judge_spec: dict[str, Any] = field(default_factory=dict)  # how a worker rebuilds the same judge
    delivered: list[EvidenceSpan] = field(default_factory=list)
    judgment_of: dict[tuple[str, int, int], int] = field(default_factory=dict)  # span -> Judgment row id
    judged: set[str] = field(default_factory=set)
    config: dict[str, Any] = field(default_factory=dict)

    def log(self, kind: str, payload: dict[str, Any]) -> None:
        """Emit an event, then save the trajectory and heartbeat; stop if the run was cancelled meanwhile."""
        self.emit(self.run.pk, kind, payload)
        status = heartbeat(self.run.pk, self.trajectory)
        if status == Run.Status.CANCELLED:
            raise RunCancelled("the run was cancelled")

    def record_spend(self, client: Any) -> None:
        """Copy the model client's spend and call count onto the run (the live page shows them)."""
        self.run.spent_usd = float(client.cap.spent_usd) if getattr(client, "cap", None) else 0.0
        self.run.calls = int(getattr(client, "calls", 0))
        Run.objects.filter(pk=self.run.pk).update(spent_usd=self.run.spent_usd, calls=self.run.calls)

    def deliver(self, spans: list[EvidenceSpan]) -> list[EvidenceSpan]:
        """Hand spans to System 2: new ones are recorded, emitted and added to the trajectory."""
        known = {(s.docid, s.start, s.end) for s in self.delivered}
        fresh = [
            s for s in spans if (s.docid, s.start, s.end) not in known and not known.add((s.docid, s.start, s.end))
        ]
        self.delivered.extend(fresh)
        self.trajectory.add("delivered", [s.docid for s in fresh])
        for span in fresh:
            self.log(
                "evidence",
                {
                    "docid": span.docid,
                    "start": span.start,
                    "end": span.end,
                    "page": span.page,
                    "quote": span.quote,
                    "probability": round(span.probability, 4),
                    "goal": span.sub_question,
                },
            )
        return fresh


class RunCancelled(Exception):
    """The owner cancelled the run: it stops at the next step."""


def heartbeat(run_id: int, trajectory: Trajectory) -> str | None:
    """Save the trajectory and the heartbeat in one statement; return the run's current status."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE evidence_run SET heartbeat_at = now(), trajectory = %s WHERE id = %s RETURNING status",
            [json.dumps(trajectory.as_dict()), run_id],
        )
        row = cursor.fetchone()
    return row[0] if row else None


@dataclass
class Outcome:
    status: str
    answer: Answer


# ------------------------------------------------------------------ shared steps


def search_hits(ctx: RunContext, query: str, reason: str) -> list[Hit]:
    """Run the search tool and return the cached ranking as hits (empty when the tool refused the call)."""
    from ..retrieval.cache import load_ranking

    try:
        result = ctx.tools.search(reason, query)
    except ToolError as error:
        ctx.log("tool_error", {"tool": "search", "message": str(error)})
        return []
    ranking = load_ranking(ctx.run.pk, result.data["search_id"]).ranking
    return [Hit(docid, score, passage) for docid, score, passage in ranking]


def read_top(ctx: RunContext, hits: list[Hit], k: int, query: str | None = None) -> list[Unit]:
    """Load the top k hits as units; a run scoped to a few documents reads their best passages instead."""
    if ctx.tools.scope and len(ctx.tools.scope) <= SCOPED_PASSAGE_LIMIT:
        return ctx_units(ctx, scoped_passage_hits(ctx, query or ctx.run.question, k))
    return ctx_units(ctx, hits[:k])


def scoped_passage_hits(ctx: RunContext, query: str, k: int) -> list[Hit]:
    """Rank the passages of the scoped documents by passage BM25 (each passage becomes its own unit)."""
    from ..retrieval import index_store

    index = index_store.load(ctx.run.collection_id)
    scores = index.passages.scores(index.analyze(query))
    rows = [
        (float(scores[i]), docid, index.passage_ordinals[i])
        for i, docid in enumerate(index.passage_docids)
        if docid in ctx.tools.scope
    ]
    rows.sort(key=lambda row: (-row[0], row[1], row[2]))
    return [Hit(docid, score, ordinal) for score, docid, ordinal in rows[:k]]


def ctx_units(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Load units for hits with the run's block kind (sentences, or paragraphs for paper QA)."""
    return load_units(ctx.run.collection_id, hits, block_kind=str(ctx.config.get("block_kind", "sentence")))


def unit_key(unit: Unit) -> str:
    return f"{unit.docid}@{unit.blocks[0].start if unit.blocks else 0}"


def answer_from(ctx: RunContext, plan: Plan) -> Answer:
    answer = compose_extractive(plan.question, ctx.delivered, plan.boolean)
    ctx.trajectory.add("cited", [span.docid for _, span in answer.citations])
    return answer


def plain_select(ctx: RunContext, plan: Plan, units: list[Unit]) -> list[EvidenceSpan]:
    """Select spans without System 1 (cosine + lexical overlap), as the baselines do."""
    ctx.trajectory.add("inspected", [unit.docid for unit in units])
    spans = heuristic_spans(plan.question, units)
    return ctx.deliver(spans)


# ------------------------------------------------------------------ systems


def run_single_pass(ctx: RunContext) -> Outcome:
    plan = make_plan(ctx.run.question)
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries[:1]})
    hits = search_hits(ctx, plan.queries[0], "Single pass: retrieve the top documents for the question.")
    k = int(ctx.config.get("top_k", 10))
    plain_select(ctx, plan, read_top(ctx, hits, k, plan.queries[0]))
    answer = answer_from(ctx, plan)
    return Outcome("answered" if answer.citations else "no_new_passages", answer)


def run_review_loop(ctx: RunContext) -> Outcome:
    plan = make_plan(ctx.run.question)
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries})
    query, used = plan.queries[0], []
    k = int(ctx.config.get("top_k", 10))
    for round_number in range(1, MAX_ROUNDS + 1):
        ctx.clock.check()
        used.append(query)
        before = set(ctx.trajectory["surfaced"])
        hits = search_hits(ctx, query, f"Round {round_number}: search for evidence.")
        if round_number > 1 and not set(h.docid for h in hits[:k]) - before:
            return Outcome("no_new_passages", answer_from(ctx, plan))
        plain_select(ctx, plan, read_top(ctx, hits, k, query))
        answer = answer_from(ctx, plan)
        review_ok = answer.citations and answer.confidence >= 0.5
        ctx.log("review", {"round": round_number, "supported": bool(review_ok), "confidence": answer.confidence})
        if review_ok:
            return Outcome("answered", answer)
        next_query = refine_query(plan.question, [s.quote for s in ctx.delivered[:5]], used)
        if next_query is None:
            return Outcome("no_new_passages", answer)
        query = next_query
    return Outcome("round_cap", answer_from(ctx, plan))


def run_pi_serini(ctx: RunContext) -> Outcome:
    plan = make_plan(ctx.run.question)
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries})
    k = int(ctx.config.get("top_k", 5))
    for query in plan.queries:
        if ctx.clock.steer_due:
            break
        hits = search_hits(ctx, query, "Search with a short lexical query from the question.")
        if len(hits) > 5:
            with contextlib.suppress(ToolError):
                ctx.tools.read_search_results(
                    "Browse the cached ranking before rewriting the query.",
                    ctx.tools.run.searches.latest("id").search_id,
                    6,
                    10,
                )
        for hit in hits[:3]:
            try:
                ctx.tools.read_document(f"Read candidate {hit.docid} for the question's clues.", hit.docid, 1, 200)
            except ToolError:
                continue
        plain_select(ctx, plan, read_top(ctx, hits, k, query))
        if any(s.probability >= SUPPORTED for s in ctx.delivered):
            break
    answer = answer_from(ctx, plan)
    return Outcome("answered" if answer.citations else "no_new_passages", answer)


def run_dual(ctx: RunContext) -> Outcome:
    if ctx.judge is None:
        raise RuntimeError("the dual system needs a System 1 judge")
    plan = make_plan(ctx.run.question)
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries, "clues": plan.clues})
    if ctx.run.task == Run.Task.RANKING:
        return rank_dual(ctx, plan)
    k = int(ctx.config.get("top_k", 10))
    queries, used = list(plan.queries), []
    rounds = 0
    first_hits: list[Hit] = []
    while queries and rounds < MAX_ROUNDS + 1:
        if ctx.clock.steer_due:
            break
        query = queries.pop(0)
        used.append(query)
        rounds += 1
        hits = search_hits(ctx, query, "Search for evidence with a lexical query from the question.")
        first_hits = first_hits or hits
        candidates = [u for u in read_top(ctx, hits, 3 * k, query) if unit_key(u) not in ctx.judged][:k]
        request_evidence(ctx, plan, candidates)
        if ctx.clock.seconds_to_steer() >= 45:
            # Evidence mining: System 1 reads the next units for the question's clues (JevGPT 3.3).
            mining_units = [u for u in ctx_units(ctx, hits[k : k + 60]) if unit_key(u) not in ctx.judged]
            leads = mine_qa(ctx.judge, plan.question, mining_units, clues=plan.clues)
            ctx.trajectory.add("inspected", [u.docid for u in mining_units])
            for lead in leads:
                ctx.log("lead", {"docid": lead.docid, "priority": round(lead.priority, 4), "clues": list(lead.clues)})
            request_evidence(ctx, plan, ctx_units(ctx, [Hit(lead.docid, lead.priority) for lead in leads]))
        if any(s.probability >= SUPPORTED for s in ctx.delivered) and rounds >= 1 and not queries:
            break
        if not queries and rounds < MAX_ROUNDS:
            refined = refine_query(
                plan.question, [s.quote for s in sorted(ctx.delivered, key=lambda s: -s.probability)[:5]], used
            )
            if refined and not any(s.probability >= SUPPORTED for s in ctx.delivered):
                queries.append(refined)
    if not ctx.delivered and first_hits:
        # System 1 found nothing above its threshold: System 2 reads the best candidates itself, and the
        # answer carries the lower confidence of that plain reading.
        ctx.log("fallback", {"reason": "no evidence passed System 1's threshold", "read": min(k, len(first_hits))})
        plain_select(ctx, plan, read_top(ctx, first_hits, k, plan.queries[0]))
    answer = answer_from(ctx, plan)
    if answer.citations:
        return Outcome("answered", answer)
    return Outcome("round_cap" if rounds > MAX_ROUNDS else "no_new_passages", answer)


def request_evidence(
    ctx: RunContext, plan: Plan, units: list[Unit], options: dict[str, Any] | None = None
) -> list[EvidenceSpan]:
    """System 1 localization of the plan's sub-questions over candidate units; deliver what it finds."""
    units = [u for u in units if unit_key(u) not in ctx.judged][:MAX_UNITS_PER_REQUEST]
    if not units or ctx.judge is None:
        return []
    ctx.judged.update(unit_key(u) for u in units)
    ctx.trajectory.add("inspected", [u.docid for u in units])
    result = localize_fanned_out(
        ctx.judge,
        ctx.judge_spec,
        ctx.run.collection_id,
        plan.sub_questions,
        units,
        timeout_s=max(5.0, ctx.clock.remaining()),
        options=options or ctx.config.get("localize") or {},
    )
    best: dict[str, float] = {}
    for judgment in result.judgments:
        if judgment["kind"] == "fanout":
            ctx.log("judge_batches", {"batches": judgment["batches"], "by_workers": judgment["by_workers"]})
        elif judgment["kind"] == "noul":
            docid = str(judgment["docid"])
            best[docid] = max(best.get(docid, 0.0), float(judgment["p"]))  # type: ignore[arg-type]
    record_judgments(ctx, plan.question, units, best, result.spans)
    return ctx.deliver(sorted(result.spans, key=lambda s: -s.probability))


def record_judgments(
    ctx: RunContext, goal: str, units: list[Unit], best: dict[str, float], spans: list[EvidenceSpan]
) -> None:
    """Write one Judgment row and one event per judged unit: its best region probability and chosen blocks."""
    from ..models import Document, Judgment

    documents = dict(
        Document.objects.filter(collection_id=ctx.run.collection_id, docid__in=[u.docid for u in units]).values_list(
            "docid", "pk"
        )
    )
    for unit in units:
        if unit.docid not in documents or not unit.blocks:
            continue
        chosen = [s for s in spans if s.docid == unit.docid and unit.blocks[0].start <= s.start < unit.blocks[-1].end]
        probability = best.get(unit.docid, 0.0)
        judgment = Judgment.objects.create(
            run=ctx.run,
            document_id=documents[unit.docid],
            goal=goal,
            kind=Judgment.Kind.NOUL,
            start=unit.blocks[0].start,
            end=unit.blocks[-1].end,
            probabilities=[round(probability, 6)],
            chosen=[[s.start, s.end, round(s.probability, 6)] for s in chosen],
            provider=getattr(ctx.judge, "name", "local"),
        )
        for span in chosen:
            ctx.judgment_of[(span.docid, span.start, span.end)] = judgment.pk
        top = max(chosen, key=lambda s: s.probability, default=None)
        ctx.log(
            "judgment",
            {
                "docid": unit.docid,
                "title": unit.title,
                "goal": goal,
                "probability": round(probability, 4),
                "block": None if top is None else {"start": top.start, "end": top.end, "quote": top.quote[:300]},
            },
        )


def rank_dual(ctx: RunContext, plan: Plan) -> Outcome:
    """Ranking task: System 1 grades the top 100 (relevance assessment), then localizes evidence in the top 3."""
    hits = search_hits(ctx, plan.queries[0], "Search for documents relevant to the topic.")
    units = ctx_units(ctx, hits[:RERANK_DEPTH])
    ctx.trajectory.add("inspected", [u.docid for u in units])
    relevance = assess_relevance(ctx.judge, plan.question, units)  # type: ignore[arg-type]
    order = relevance.ranking()
    ranking = [{"docid": d, "p": round(relevance.p(d) or 0.0, 4)} for d in order]
    ranked_hits = [h for h in hits[:RERANK_DEPTH]]
    by_docid = {h.docid: h for h in ranked_hits}
    # Evidence for the top documents: the judge's sentence head expects System 1's p_d as the unit score.
    top = [Hit(d, relevance.p(d) or 0.0, by_docid[d].passage) for d in order[:EVIDENCE_DOCS] if d in by_docid]
    top_units = ctx_units(ctx, top)
    request_evidence(ctx, plan, top_units, options=ctx.config.get("localize") or {})
    tail = [{"docid": h.docid, "p": 0.0} for h in hits[RERANK_DEPTH:]]
    answer = compose_extractive(plan.question, ctx.delivered, plan.boolean)
    answer.ranking = ranking + tail
    ctx.trajectory.add("cited", [span.docid for _, span in answer.citations])
    return Outcome("answered", answer)


SYSTEMS: dict[str, Callable[[RunContext], Outcome]] = {
    "single_pass": run_single_pass,
    "review_loop": run_review_loop,
    "pi_serini": run_pi_serini,
    "dual": run_dual,
}
