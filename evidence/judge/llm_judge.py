"""The `llm` provider: any OpenAI-compatible chat model answering the typed questions as JSON.

One chat call per batch: the system prompt fixes the answer shapes (Jev's), the user message carries
the state and the questions; the reply must be {"answers": {id: {...}}}.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx

from . import wire
from .jev import raise_for_error
from .types import ChoiceQuestion, JudgeError, NoulQuestion, ScoreQuestion

SYSTEM_PROMPT = """You are a fast evidence judge. Read the documents in STATE and answer every question in QUESTIONS.
Answer types:
- noul: {"noul": P(the statement is true)}
- choice: {"choice": label, "probabilities": {label: p, ...}} over every label in criteria, summing to 1
- score: {"score": expected level index, "probabilities": [p for each level in criteria order]}
Reply with one JSON object only: {"answers": {"<question id>": <answer>, ...}}."""


class LLMJudge(wire.AskingJudge):
    """Ask an OpenAI-compatible chat endpoint (POST {base}/chat/completions) for JSON judgments."""

    name = "llm"

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout: float = 120.0,
        client: httpx.Client | None = None,
        max_tokens: int = 4096,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.max_tokens = max_tokens
        self.client = client or httpx.Client(timeout=timeout)
        self.usage = {"input_tokens": 0, "output_tokens": 0, "calls": 0}

    def ask(self, questions: Sequence[NoulQuestion | ChoiceQuestion | ScoreQuestion]) -> dict[str, Any]:
        """Send one chat request for the batch and return the parsed answers."""
        if not questions:
            return {}
        state, wq = wire.render(questions)
        user = f"STATE:\n{state}\n\nQUESTIONS:\n{json.dumps(wq, ensure_ascii=False)}"
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
        }
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        response = self.client.post(f"{self.base_url}/chat/completions", json=body, headers=headers)
        raise_for_error(response, "llm")
        data = response.json()
        usage = data.get("usage") or {}
        self.usage["input_tokens"] += int(usage.get("prompt_tokens", 0))
        self.usage["output_tokens"] += int(usage.get("completion_tokens", 0))
        self.usage["calls"] += 1
        try:
            content = data["choices"][0]["message"]["content"]
            return dict(json.loads(_strip_fence(content))["answers"])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise JudgeError(f"llm: the reply is not the JSON answer object ({type(exc).__name__})") from exc


def _strip_fence(content: str) -> str:
    """Drop a ```json fence some models wrap JSON in."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text
