"""An optional LLM answer judge (judged accuracy), its calls recorded on the question's run and replayable."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..agent.llm import ChatMessage, ChatRequest, LLMClient

PROMPT = """Judge whether the following [response] to [question] is correct or not based on the precise and \
unambiguous [correct_answer] below.

[question]: {question}

[response]: {response}

Your judgement must be in the format and criteria specified below:

extracted_final_answer: The final exact answer extracted from the [response]. Put the extracted answer as 'None' \
if there is no exact, final answer to extract from the response.

[correct_answer]: {reference}

reasoning: Explain why the extracted_final_answer is correct or incorrect based on [correct_answer], focusing only \
on if there are meaningful differences between [correct_answer] and the extracted_final_answer.

correct: Answer 'yes' if extracted_final_answer matches the [correct_answer] given above, or is within a small \
margin of error for numerical problems. Answer 'no' otherwise, i.e. if there is any inconsistency, ambiguity, \
non-equivalency, or if the extracted answer is incorrect."""

VERDICT = re.compile(r"correct:\s*\**\s*(yes|no)\b", re.I)


@dataclass(frozen=True)
class Verdict:
    correct: bool | None  # None: the judge gave no parseable verdict
    raw: str


def judge_answer(client: LLMClient, model: str, question: str, response: str, reference: str) -> Verdict:
    """Ask the judge model whether `response` answers `question` as `reference` does."""
    prompt = PROMPT.format(question=question, response=response, reference=reference)
    reply = client.complete(
        ChatRequest(model=model, messages=(ChatMessage("user", prompt),), temperature=0.0, max_tokens=1024)
    )
    text = reply.content or ""
    match = VERDICT.search(text)
    return Verdict(None if match is None else match.group(1).lower() == "yes", text)


def agreement(verdicts: list[bool | None], reference_correct: list[bool]) -> dict[str, Any]:
    """Return judged accuracy and how often the judge agrees with the metric's own right/wrong call."""
    pairs = [(v, r) for v, r in zip(verdicts, reference_correct, strict=True) if v is not None]
    if not pairs:
        return {"judged_accuracy": None, "judge_agreement": None, "judged": 0}
    return {
        "judged_accuracy": round(sum(v for v, _ in pairs) / len(pairs), 4),
        "judge_agreement": round(sum(v == r for v, r in pairs) / len(pairs), 4),
        "judged": len(pairs),
    }
