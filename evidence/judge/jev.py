"""The `jev` provider: TypeSafe's System One API (POST /v1/systemone, SPEC 4), many questions per call.

State plus the longest question must stay under ~33k tokens and state plus all questions under ~64k:
batches are split client-side by a 4-characters-a-token estimate, and the server's own
`max_tokens_exceeded` still maps to MaxTokensExceeded. 403 = no key, 401 = wrong key.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx

from . import wire
from .types import ChoiceQuestion, JudgeError, NoulQuestion, ScoreQuestion

MAX_QUESTION_TOKENS = 33_000
MAX_CALL_TOKENS = 64_000
Question = NoulQuestion | ChoiceQuestion | ScoreQuestion


class JudgeAuthError(JudgeError):
    """The provider refused the key (401 wrong key, 403 missing key)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


class MaxTokensExceeded(JudgeError):
    """State plus questions are too long for one call."""


def estimate_tokens(text: str) -> int:
    """Return a rough token count (4 characters a token)."""
    return len(text) // 4 + 1


def raise_for_error(response: httpx.Response, provider: str) -> None:
    """Map an HTTP error response to a clear exception."""
    if response.status_code < 400:
        return
    try:
        body = response.json()
    except ValueError:
        body = {}
    error = body.get("error") if isinstance(body, dict) else None
    code = (error.get("type") or error.get("code")) if isinstance(error, dict) else error
    message = (error.get("message") if isinstance(error, dict) else None) or response.text[:200]
    if response.status_code == 403:
        raise JudgeAuthError(403, f"{provider}: no API key was sent (403); set the key in the judge settings")
    if response.status_code == 401:
        raise JudgeAuthError(401, f"{provider}: the API key was refused (401); check it")
    if code in {"max_tokens_exceeded", "context_length_exceeded"}:
        raise MaxTokensExceeded(f"{provider}: {code}: {message}")
    raise JudgeError(f"{provider}: HTTP {response.status_code}: {message}")


class JevJudge(wire.AskingJudge):
    """Ask Jev the typed questions; one HTTP call carries as many questions as the token limits allow."""

    name = "jev"

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str = "jev-latest",
        timeout: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        self.client = client or httpx.Client(timeout=timeout)
        self.usage = {"input_tokens": 0, "output_tokens": 0, "calls": 0}

    def _post(self, state: str, questions: wire.Wire) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {"model": self.model, "state": state, "questions": questions}
        response = self.client.post(f"{self.base_url}/v1/systemone", json=body, headers=headers)
        raise_for_error(response, "jev")
        data = response.json()
        for key in ("input_tokens", "output_tokens"):
            self.usage[key] += int((data.get("usage") or {}).get(key, 0))
        self.usage["calls"] += 1
        return dict(data.get("answers") or {})

    def ask(self, questions: Sequence[Question]) -> dict[str, Any]:
        """Send the questions in as few calls as the limits allow; return answers keyed "q0", "q1", ..."""
        answers: dict[str, Any] = {}
        for start, end in self._chunks(questions):
            state, wq = wire.render(questions[start:end])
            got = self._post(state, wq)
            answers.update({f"q{start + int(k[1:])}": v for k, v in got.items()})
        return answers

    def _chunks(self, questions: Sequence[Question]) -> list[tuple[int, int]]:
        """Split question indices into runs that fit the per-call limits."""
        chunks, start = [], 0
        while start < len(questions):
            end = start + 1
            if self._tokens(questions[start:end])[1] > MAX_QUESTION_TOKENS:
                raise MaxTokensExceeded(
                    f"jev: question {start} with its documents exceeds {MAX_QUESTION_TOKENS} tokens"
                )
            while end < len(questions) and self._tokens(questions[start : end + 1])[0] <= MAX_CALL_TOKENS:
                end += 1
            chunks.append((start, end))
            start = end
        return chunks

    @staticmethod
    def _tokens(questions: Sequence[Question]) -> tuple[int, int]:
        """Return (state + all questions, state + longest question) token estimates."""
        state, wq = wire.render(questions)
        sizes = [estimate_tokens(json.dumps(q, ensure_ascii=False)) for q in wq.values()]
        base = estimate_tokens(state)
        return base + sum(sizes), base + max(sizes, default=0)
