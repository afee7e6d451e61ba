"""Two-hop questions: System 1 picks the pair of supporting paragraphs, then their supporting sentences."""

from __future__ import annotations

from ..judge.localize import EvidenceSpan
from ..judge.types import Unit
from ..retrieval.types import Hit
from .answer import compose_extractive
from .context import Outcome, RunContext, ctx_units, search_hits
from .planner import Plan

CANDIDATES = 10  # paragraphs read as pairs (HotpotQA gives ten per question)


def reads_multihop(ctx: RunContext) -> bool:
    """Return whether this run asked for the pair reader and its judge has one (the local provider)."""
    return ctx.config.get("reader") == "multihop" and hasattr(ctx.judge, "multihop_support")


def candidate_paragraphs(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Return the run's scoped documents (ranked ones first) or else the top hits, as units of sentences."""
    ranked = list(hits[:CANDIDATES])
    seen = {hit.docid for hit in ranked}
    ranked += [Hit(docid, 0.0) for docid in sorted(ctx.tools.scope) if docid not in seen]
    return ctx_units(ctx, ranked if ctx.tools.scope else ranked[:CANDIDATES])


def answer_multihop(ctx: RunContext, plan: Plan) -> Outcome:
    """Search, judge every paragraph pair, deliver the chosen sentences, and answer citing all of them."""
    hits = search_hits(ctx, plan.queries[0], "Search for the paragraphs a two-hop question needs.")
    units = candidate_paragraphs(ctx, hits)
    ctx.trajectory.add("inspected", [unit.docid for unit in units])
    chosen = ctx.judge.multihop_support(plan.question, units)  # type: ignore[union-attr]
    spans = [
        EvidenceSpan(b.docid, b.start, b.end, b.text, b.page, p, 1.0, plan.question, b.kind)
        for u, picks in sorted(chosen.items())
        for b, p in ((units[u].blocks[i], p) for i, p in picks)
    ]
    best = {units[u].docid: max(p for _, p in picks) for u, picks in chosen.items() if picks}
    ctx.record_judgments(plan.question, units, best, spans)
    ctx.log("paragraph_pair", {"docids": [units[u].docid for u in sorted(chosen)], "sentences": len(spans)})
    ctx.deliver(spans)
    answer = compose_extractive(plan.question, spans, plan.boolean, max_sentences=len(spans), min_probability=0.0)
    ctx.trajectory.add("cited", [span.docid for _, span in answer.citations])
    return Outcome("answered" if answer.citations else "no_new_passages", answer)
