"""The System registry: the four systems on the same retrieval (SPEC 5), each one object with `run(ctx)`.

A system has two drivers, one per kind of planner: the offline steps below (and dual.py), and the model's
(baselines.py for single_pass and review_loop, planning/llm.py's tool loop for pi_serini and dual). The
planner is injected in the run context; the loop looks systems up here and never branches on their names.

single_pass: one search, the top k read by a plain scorer. review_loop (seed 002): answer, review, refine
the query, up to 3 rounds. pi_serini: the three tools, no System 1. dual (dual.py): the tools plus System 1
(localization with sub-questions, evidence mining, relevance assessment for ranking).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..core import (
    MAX_ROUNDS,
    SUPPORTED,
    ModelPlanner,
    Outcome,
    RunContext,
    ToolError,
    answer_from,
    plain_select,
    read_top,
    refine_query,
)
from ..planning import run_llm_planner
from .baselines import llm_review_loop, llm_single_pass
from .dual import run_dual


def run_single_pass(ctx: RunContext) -> Outcome:
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries[:1]})
    hits = ctx.tools.hits(plan.queries[0], "Single pass: retrieve the top documents for the question.")
    k = ctx.config.k(10)
    plain_select(ctx, plan, read_top(ctx, hits, k, plan.queries[0]))
    answer = answer_from(ctx, plan)
    return Outcome("answered" if answer.citations else "no_new_passages", answer)


def run_review_loop(ctx: RunContext) -> Outcome:
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries})
    query, used = plan.queries[0], []
    k = ctx.config.k(10)
    for round_number in range(1, MAX_ROUNDS + 1):
        ctx.clock.check()
        used.append(query)
        before = set(ctx.recorder.trajectory["surfaced"])
        hits = ctx.tools.hits(query, f"Round {round_number}: search for evidence.")
        if round_number > 1 and not set(h.docid for h in hits[:k]) - before:
            return Outcome("no_new_passages", answer_from(ctx, plan))
        plain_select(ctx, plan, read_top(ctx, hits, k, query))
        answer = answer_from(ctx, plan)
        review_ok = answer.citations and answer.confidence >= 0.5
        cited = list(dict.fromkeys(span.docid for _, span in answer.citations))  # the recorder counts them cited
        ctx.log(
            "review",
            {"round": round_number, "supported": bool(review_ok), "confidence": answer.confidence, "cited": cited},
        )
        if review_ok:
            return Outcome("answered", answer)
        next_query = refine_query(plan.question, [s.quote for s in ctx.delivered[:5]], used)
        if next_query is None:
            return Outcome("no_new_passages", answer)
        query = next_query
    return Outcome("round_cap", answer_from(ctx, plan))


def run_pi_serini(ctx: RunContext) -> Outcome:
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries})
    k = ctx.config.k(5)
    for query in plan.queries:
        if ctx.clock.steer_due:
            break
        hits = ctx.tools.hits(query, "Search with a short lexical query from the question.")
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


@dataclass(frozen=True)
class System:
    """One research system: its offline steps, its steps with a model as System 2, and whether it has System 1."""

    name: str
    offline: Callable[[RunContext], Outcome]
    with_model: Callable[[RunContext, ModelPlanner], Outcome]
    uses_judge: bool = False

    def run(self, ctx: RunContext) -> Outcome:
        """Run with the planner the context was given."""
        if isinstance(ctx.planner, ModelPlanner):
            return self.with_model(ctx, ctx.planner)
        return self.offline(ctx)


SYSTEMS: dict[str, System] = {
    system.name: system
    for system in (
        System("single_pass", run_single_pass, llm_single_pass),
        System("review_loop", run_review_loop, llm_review_loop),
        System("pi_serini", run_pi_serini, partial(run_llm_planner, evidence_tool=False)),
        System("dual", run_dual, partial(run_llm_planner, evidence_tool=True), uses_judge=True),
    )
}
SYSTEM_NAMES = tuple(SYSTEMS)
