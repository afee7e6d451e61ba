"""The two baselines with a language model: single_pass (read the top k, answer once) and review_loop (seed 002).

Retrieval and reading are the offline systems' (the same search, the same plain span scorer); the model
writes the answer from the delivered passages, and in review_loop also reviews it and proposes the next
query, for up to 3 rounds. Citations keep only docids whose passages were delivered.
"""

from __future__ import annotations

import re

from ..core import MAX_ROUNDS, Answer, ModelPlanner, Outcome, RunContext, plain_select, read_top
from ..llm import ChatResponse, Conversation
from ..planning import MAX_OUTPUT_TOKENS, final_answer

ANSWER_PROMPT = """You answer a research question using only the passages given to you. Each passage starts \
with its document id in square brackets. Answer in exactly this format: Explanation: {your explanation, citing \
the supporting docids inline in square brackets at the end of sentences, for example [123]; cite only the \
documents given} Exact Answer: {your succinct, final answer} Confidence: {your confidence between 0% and 100%}"""
REVIEW_PROMPT = """Review the answer against the passages. If every claim in it is supported by the passages, \
reply exactly SUPPORTED. Otherwise reply REFINE: followed by one short lexical search query that would find the \
missing evidence."""
REFINE = re.compile(r"REFINE:\s*(.+)", re.I | re.S)


def passages_text(ctx: RunContext, start: int = 0) -> str:
    """Return the delivered spans from index start on, one per line, each headed by its docid."""
    return "\n".join(f"[{s.docid}] {' '.join(s.quote.split())}" for s in ctx.delivered[start:])


def ask_model(ctx: RunContext, planner: ModelPlanner, chat: Conversation) -> ChatResponse:
    """Send the conversation, record the spend on the run, and append the reply."""
    ctx.clock.check()
    response = planner.client.complete(chat.request(planner.model, temperature=0.0, max_tokens=MAX_OUTPUT_TOKENS))
    ctx.record_spend(planner.client)
    chat.add_assistant(response)
    return response


def llm_single_pass(ctx: RunContext, planner: ModelPlanner) -> Outcome:
    """One search, the top k read by the plain scorer, one model call to answer from them."""
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries[:1]})
    hits = ctx.tools.hits(plan.queries[0], "Single pass: retrieve the top documents for the question.")
    plain_select(ctx, plan, read_top(ctx, hits, ctx.config.k(10), plan.queries[0]))
    chat = Conversation(system=ANSWER_PROMPT)
    chat.add_user(f"Question: {ctx.run.question}\n\nPassages:\n{passages_text(ctx)}")
    answer = final_answer(ctx, ask_model(ctx, planner, chat))
    return Outcome("answered" if answer.citations else "no_new_passages", answer)


def llm_review_loop(ctx: RunContext, planner: ModelPlanner) -> Outcome:
    """Answer, review, refine the query: up to 3 rounds, each adding newly read passages to one conversation."""
    plan = ctx.plan
    ctx.log("plan", {"sub_questions": plan.sub_questions, "queries": plan.queries})
    chat = Conversation(system=ANSWER_PROMPT)
    query, used = plan.queries[0], set()
    answer = Answer(explanation="", exact_answer="", confidence=0.0)
    k = ctx.config.k(10)
    for round_number in range(1, MAX_ROUNDS + 1):
        used.add(query.lower())
        seen = len(ctx.delivered)
        hits = ctx.tools.hits(query, f"Round {round_number}: search for evidence.")
        plain_select(ctx, plan, read_top(ctx, hits, k, query))
        if round_number > 1 and len(ctx.delivered) == seen:
            return Outcome("no_new_passages", answer)
        chat.add_user(f"Question: {ctx.run.question}\n\nPassages (round {round_number}):\n{passages_text(ctx, seen)}")
        answer = final_answer(ctx, ask_model(ctx, planner, chat))
        if ctx.clock.steer_due:
            return Outcome("answered" if answer.citations else "no_new_passages", answer)
        chat.add_user(REVIEW_PROMPT)
        review = (ask_model(ctx, planner, chat).content or "").strip()
        refine = REFINE.search(review)
        supported = review.upper().startswith("SUPPORTED")
        cited = list(dict.fromkeys(span.docid for _, span in answer.citations))  # the recorder counts them cited
        ctx.log(
            "review", {"round": round_number, "supported": supported, "confidence": answer.confidence, "cited": cited}
        )
        if supported:
            return Outcome("answered", answer)
        next_query = refine.group(1).strip().splitlines()[0][:200] if refine else ""
        if not next_query or next_query.lower() in used:
            return Outcome("no_new_passages", answer)
        query = next_query
    return Outcome("round_cap", answer)
