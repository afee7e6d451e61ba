"""System 2 as an LLM: a ReAct loop over the search tools (Pi-Serini prompt), plus request_evidence for dual."""

from __future__ import annotations

from typing import Any

from ...retrieval import Hit
from ..core import Answer, ModelPlanner, Outcome, RunContext, ToolError, attach_citations, heuristic_spans, load_units
from ..llm import ChatResponse, Conversation, ToolCall, ToolSpec, parse_final_answer
from ..readers import evidence_in_documents

MAX_STEPS = 40
MAX_OUTPUT_TOKENS = 2048

PROMPT = """You are a deep research agent answering a question using only the provided tools.
Workflow: 1. Use search with a concise raw query string based on the original question. 2. Prefer short lexical \
searches over long natural-language rewrites. 3. Browse the current ranking with read_search_results before \
repeatedly rewriting the query. 4. If a promising candidate document appears in the ranking, inspect it with \
{inspect}. 5. When reading a document, start with offset=1 and a moderate limit. If it is truncated and still \
relevant, continue reading the same document. 6. Use search refinements only when they add a genuinely new clue \
from what you already saw. 7. Every tool call must include reason as the first argument. Keep it specific, under \
100 words. 8. As soon as you have enough evidence, stop using tools and answer in plain assistant text. 9. Your \
final response must use exactly this format: Explanation: {{your explanation for your final answer. Cite \
supporting docids inline in square brackets [] at the end of sentences, for example [123]. Cite only documents \
whose evidence you received.}} Exact Answer: {{your succinct, final answer}} Confidence: {{your confidence score \
between 0% and 100%}} 10. If you later receive a user steer telling you to submit now, stop using tools \
immediately and answer right away in the format above. 11. Keep Exact Answer concise.
Question: {question}"""

THREAD_NOTE = (
    "\nThis question follows up earlier questions of the same research thread (oldest first). Read it in their "
    "light (a pronoun may name what an earlier answer named), but answer only the new question:\n{turns}"
)


def thread_note(ctx: RunContext) -> str:
    """The thread a follow-up continues, for the system prompt ('' for a question asked on its own)."""
    turns = [f"- Q: {t.question}\n  A: {t.answer or '(no short answer)'}" for t in ctx.config.earlier]
    return THREAD_NOTE.format(turns="\n".join(turns)) if turns else ""


SUBMIT_NOW = (
    "The time budget is nearly exhausted. Stop using tools and submit your best answer now, in the format "
    "Explanation: ... Exact Answer: ... Confidence: ..."
)
BLOCKED = "Tools are blocked: the time budget is nearly exhausted. Submit your final answer now."

REASON = {"type": "string", "description": "why this call, under 100 words"}
TOOLS = [
    ToolSpec(
        "search",
        "Rank up to 1000 documents for a lexical query; shows ranks 1-5 and caches the ranking.",
        {
            "type": "object",
            "properties": {"reason": REASON, "query": {"type": "string"}},
            "required": ["reason", "query"],
        },
    ),
    ToolSpec(
        "read_search_results",
        "Page through a cached ranking by search_id (1-based rank offset).",
        {
            "type": "object",
            "properties": {
                "reason": REASON,
                "search_id": {"type": "string"},
                "offset": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            "required": ["reason", "search_id"],
        },
    ),
    ToolSpec(
        "read_document",
        "Read one document by docid in line-based chunks.",
        {
            "type": "object",
            "properties": {
                "reason": REASON,
                "docid": {"type": "string"},
                "offset": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            "required": ["reason", "docid"],
        },
    ),
]
REQUEST_EVIDENCE = ToolSpec(
    "request_evidence",
    "Ask System 1 (a fast judge) to read candidate documents in parallel and return raw evidence spans with "
    "their exact character ranges and probabilities, for up to 6 sub-questions.",
    {
        "type": "object",
        "properties": {
            "reason": REASON,
            "docids": {"type": "array", "items": {"type": "string"}},
            "sub_questions": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["reason", "docids", "sub_questions"],
    },
)


def run_llm_planner(ctx: RunContext, planner: ModelPlanner, evidence_tool: bool) -> Outcome:
    """Drive the tools with the model until it answers, the steer, the deadline or the spending cap.

    With `evidence_tool` (the dual system) the model may also call request_evidence: System 1 reads for it.
    """
    client, model = planner.client, planner.model
    tools = [*TOOLS, REQUEST_EVIDENCE] if evidence_tool else list(TOOLS)
    inspect = "read_document"
    if evidence_tool:
        inspect = "request_evidence (System 1 reads many documents at once) or read_document"
    chat = Conversation(system=PROMPT.format(inspect=inspect, question=ctx.run.question) + thread_note(ctx))
    chat.add_user(ctx.run.question)
    steered = False
    for _step in range(MAX_STEPS):
        ctx.clock.check()
        ctx.recorder.check_cancelled()
        if ctx.clock.steer_due and not steered:
            for call in chat.pending_tool_calls():
                chat.add_tool_result(call, BLOCKED)
            chat.add_steer(SUBMIT_NOW)
            ctx.log("steer", {"message": SUBMIT_NOW, "elapsed_s": round(ctx.clock.elapsed(), 2)})
            steered = True
        response = client.complete(
            chat.request(model, tools=() if steered else tools, temperature=0.0, max_tokens=MAX_OUTPUT_TOKENS)
        )
        ctx.record_spend(client)
        chat.add_assistant(response)
        if response.tool_calls and not steered:
            for call in response.tool_calls:
                chat.add_tool_result(call, dispatch(ctx, call))
            continue
        if response.tool_calls:
            for call in response.tool_calls:
                chat.add_tool_result(call, BLOCKED)
            continue
        return Outcome("answered", final_answer(ctx, response))
    return Outcome("round_cap", Answer(explanation="", exact_answer="", confidence=0.0))


def dispatch(ctx: RunContext, call: ToolCall) -> str:
    """Run one tool call; a bad call becomes a message telling the model how to fix it."""
    if call.error:
        return f"The arguments of {call.name} were not a JSON object ({call.error}). Call it again with JSON arguments."
    try:
        if call.name == "request_evidence":
            return request_evidence_tool(ctx, call.arguments)
        result = ctx.tools.call(call.name, dict(call.arguments))
    except ToolError as error:
        ctx.log("tool_error", {"tool": call.name, "message": str(error)})
        return str(error)
    if call.name == "read_document" and ctx.judge is None:
        # Without System 1 the planner's own reading is what gets delivered: the best sentences of the chunk.
        units = load_units(ctx.run.collection_id, [Hit(str(call.arguments.get("docid")), 0.0)])
        ctx.recorder.deliver(heuristic_spans(ctx.run.question, units))
    return result.text


def request_evidence_tool(ctx: RunContext, arguments: dict[str, Any]) -> str:
    docids = arguments.get("docids")
    subs = arguments.get("sub_questions")
    if not isinstance(docids, list) or not docids or not all(isinstance(d, str) for d in docids):
        raise ToolError("request_evidence needs docids: a non-empty list of docids from search results.")
    if not isinstance(subs, list) or not subs or not all(isinstance(s, str) for s in subs):
        raise ToolError("request_evidence needs sub_questions: a list of 1-6 short questions the evidence must answer.")
    plan = ctx.plan
    plan = type(plan)(plan.question, [str(s) for s in subs[:6]], plan.queries, plan.clues, plan.boolean)
    # Through System 1's readers: a paper is read whole by section, another document by its best passage.
    spans, missing = evidence_in_documents(ctx, plan, list(dict.fromkeys(docids[:60])))
    lines = [
        f"[docid={s.docid} chars {s.start}-{s.end}{f' page {s.page}' if s.page else ''}] "
        f"p={s.probability:.2f} for {s.sub_question!r}: {s.quote}"
        for s in spans[:20]
    ]
    if missing:
        lines.append(f"Unknown docids (not in this collection): {', '.join(missing)}")
    return "\n".join(lines) or "System 1 found no evidence for these sub-questions in these documents."


def final_answer(ctx: RunContext, response: ChatResponse) -> Answer:
    """Parse the model's answer; keep citations that point at delivered spans, count the rest as dropped."""
    final = parse_final_answer(response.content or "")
    citations, dropped = attach_citations(final.explanation, ctx.delivered)
    if dropped:
        ctx.log("citations_dropped", {"count": dropped})
    exact, anchored = anchored_exact(final.exact_answer, [span.quote for span in ctx.delivered])
    return Answer(
        explanation=final.explanation,
        exact_answer=exact,
        confidence=(final.confidence if final.confidence is not None else 0.0) if anchored else 0.0,
        citations=citations,
        dropped_citations=dropped,
        signals={"reading": {"backend": "planner", "anchored": anchored, "reply": final.exact_answer[:200]}},
    )


def anchored_exact(exact: str, quotes: list[str]) -> tuple[str, bool]:
    """The planner's short answer as the reader model's is held: shown only when it stands in the delivered
    evidence (a yes/no stands on its own); otherwise withheld, the evidence left to read."""
    from ...answers.layer import NO_SHORT_ANSWER
    from ...reader.anchor import anchor
    from ...reader.prompt import read_reply

    reply = read_reply(exact, len(quotes))
    if not exact.strip() or reply.not_stated or reply.polarity:
        return exact, True
    return (exact, True) if anchor(reply.text, quotes) is not None else (NO_SHORT_ANSWER, False)
