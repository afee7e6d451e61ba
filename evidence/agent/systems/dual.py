"""The dual system (JevGPT): the search tools plus System 1 localization, evidence mining and relevance."""

from __future__ import annotations

import time
from dataclasses import replace

from ...judge import K_MINING, Unit, assess_relevance, can_start_batch
from ...retrieval import Hit
from ..core import (
    MAX_ROUNDS,
    SUPPORTED,
    Outcome,
    Plan,
    RunContext,
    answer_from,
    compose_extractive,
    ctx_units,
    load_document_units,
    plain_select,
    read_top,
    refine_query,
    unit_key,
)
from ..readers import choose_shape, request_evidence
from .background import MiningBatch, start_mining

WHOLE_DOCUMENT_BLOCKS = 48  # a document this short is judged whole for evidence (abstracts: median 9 sentences)
RERANK_DEPTH = 100  # System 1 grades the top 100 for the ranking task
EVIDENCE_DOCS = 3  # and localizes evidence in the top 3


def run_dual(ctx: RunContext) -> Outcome:
    if ctx.judge is None:
        raise RuntimeError("the dual system needs a System 1 judge")
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries, "clues": plan.clues})
    if ctx.ranking:
        return rank_dual(ctx, plan)
    return read_by_shape(ctx, plan)


def read_by_shape(ctx: RunContext, plan: Plan) -> Outcome:
    """The question and its candidates choose how System 1 reads them (readers/registry.py: the first shape that
    takes them); anything no shape takes is searched."""
    hits = ctx.tools.hits(plan.queries[0], "Search for evidence with a lexical query from the question.")
    chosen = choose_shape(ctx, plan, hits)
    if chosen is None:
        return search_loop(ctx, plan, hits)
    shape, candidates = chosen
    # the event keeps its recorded kind and field ("reader"), which the run page and stored runs read
    ctx.log("reader", {"reader": shape.name, "docids": [unit.docid for unit in candidates]})
    return shape.read(ctx, plan, candidates)


def search_loop(ctx: RunContext, plan: Plan, first_hits: list[Hit]) -> Outcome:
    """Search, let System 1 localize evidence in the top passages and mine leads from the next ones, refine."""
    k = ctx.config.k(10)
    queries, used = list(plan.queries), []
    rounds = 0
    mining: list[MiningBatch] = []
    while queries and rounds < MAX_ROUNDS + 1:
        if ctx.clock.steer_due:
            break
        query = queries.pop(0)
        used.append(query)
        rounds += 1
        if rounds == 1 and query == plan.queries[0]:
            hits = first_hits  # the search that chose the reader is the first round's
        else:
            hits = ctx.tools.hits(query, "Search for evidence with a lexical query from the question.")
        candidates = [u for u in read_top(ctx, hits, 3 * k, query) if unit_key(u) not in ctx.judged][:k]
        request_evidence(ctx, plan, candidates)
        if can_start_batch(ctx.clock.seconds_to_steer()):
            # Evidence mining: System 1 reads the next units for the question's clues (JevGPT 3.3) in the
            # background; its leads enter the research history when the loop next looks.
            mining_units = [u for u in ctx_units(ctx, hits[k : k + K_MINING]) if unit_key(u) not in ctx.judged]
            if mining_units:
                ctx.log("reading", {"docids": list(dict.fromkeys(u.docid for u in mining_units)), "for": "leads"})
                mining.append(
                    start_mining(
                        ctx.judge, ctx.judge_spec, ctx.run.collection_id, plan.question, mining_units, plan.clues
                    )
                )
        harvest_leads(ctx, plan, mining, wait=False)
        if any(s.probability >= SUPPORTED for s in ctx.delivered) and rounds >= 1 and not queries:
            break
        if not queries and rounds < MAX_ROUNDS:
            refined = refine_query(
                plan.question, [s.quote for s in sorted(ctx.delivered, key=lambda s: -s.probability)[:5]], used
            )
            if refined and not any(s.probability >= SUPPORTED for s in ctx.delivered):
                queries.append(refined)
    harvest_leads(ctx, plan, mining, wait=True)
    if not ctx.delivered and first_hits:
        # System 1 found nothing above its threshold: System 2 reads the best candidates itself, and the
        # answer carries the lower confidence of that plain reading.
        ctx.log("fallback", {"reason": "no evidence passed System 1's threshold", "read": min(k, len(first_hits))})
        plain_select(ctx, plan, read_top(ctx, first_hits, k, plan.queries[0]))
    answer = answer_from(ctx, plan)
    if answer.citations:
        return Outcome("answered", answer)
    return Outcome("round_cap" if rounds > MAX_ROUNDS else "no_new_passages", answer)


def harvest_leads(ctx: RunContext, plan: Plan, mining: list[MiningBatch], wait: bool) -> None:
    """Take finished mining batches (all of them when wait, bounded by the clock) and judge their leads."""
    deadline = time.monotonic() + max(0.0, ctx.clock.seconds_to_steer())
    for batch in [b for b in mining if wait or b.ready()]:
        mining.remove(batch)
        leads, source = batch.take(deadline)
        ctx.log("mining", {"leads": len(leads), "mined": source})
        for lead in leads:
            ctx.log("lead", {"docid": lead.docid, "priority": round(lead.priority, 4), "clues": list(lead.clues)})
        request_evidence(ctx, plan, ctx_units(ctx, [Hit(lead.docid, lead.priority) for lead in leads]))


def whole_documents(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Return each hit's whole document as one unit when it is short (an abstract split in passages), else its passage.

    The sentence head was fitted on whole abstracts: positions, the unit's length and its vector describe
    the abstract, not the passage a search happened to rank first.
    """
    passages = {u.docid: u for u in ctx_units(ctx, hits)}
    kind = ctx.config.block_kind
    whole = {u.docid: u for u in load_document_units(ctx.run.collection_id, [h.docid for h in hits], kind)}
    units = []
    for rank, hit in enumerate(hits, start=1):
        unit, passage = whole.get(hit.docid), passages.get(hit.docid)
        if passage is not None and (unit is None or [b.key for b in unit.blocks] == [b.key for b in passage.blocks]):
            units.append(passage)  # the passage is the whole document, and it has a stored vector
        elif unit is not None and len(unit.blocks) <= WHOLE_DOCUMENT_BLOCKS:
            units.append(replace(unit, score=hit.score, rank=rank))
        elif passage is not None:
            units.append(passage)
    return units


def rank_dual(ctx: RunContext, plan: Plan) -> Outcome:
    """Ranking task: System 1 grades the top 100 (relevance assessment), then localizes evidence in the top 3."""
    hits = ctx.tools.hits(plan.queries[0], "Search for documents relevant to the topic.")
    units = ctx_units(ctx, hits[:RERANK_DEPTH])
    if units:
        ctx.log("reading", {"docids": list(dict.fromkeys(u.docid for u in units)), "for": "relevance"})
    relevance = assess_relevance(ctx.judge, plan.question, units)  # type: ignore[arg-type]
    order = relevance.ranking()
    ranking = [{"docid": d, "p": round(relevance.p(d) or 0.0, 4)} for d in order]
    ranked_hits = [h for h in hits[:RERANK_DEPTH]]
    by_docid = {h.docid: h for h in ranked_hits}
    # Evidence for the top documents: the judge's sentence head expects System 1's p_d as the unit score.
    top = [Hit(d, relevance.p(d) or 0.0, by_docid[d].passage) for d in order[:EVIDENCE_DOCS] if d in by_docid]
    top_units = whole_documents(ctx, top)
    request_evidence(ctx, plan, top_units, options=ctx.config.localize.as_kwargs())
    tail = [{"docid": h.docid, "p": 0.0} for h in hits[RERANK_DEPTH:]]
    answer = compose_extractive(plan.question, ctx.delivered, threshold=ctx.config.answer_threshold)
    answer.found = True  # the ranking is the result: a claim with no short answer is still ranked, never "not found"
    answer.ranking = ranking + tail
    return Outcome("answered", answer)
