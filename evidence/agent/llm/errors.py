"""Errors of the LLM client layer; each message says what happened and what to do about it."""

from __future__ import annotations


class LLMError(Exception):
    """Base class: a model call that could not give an answer."""


class LLMHTTPError(LLMError):
    """The server refused the request with a status we do not retry (4xx other than 429)."""

    def __init__(self, status: int, message: str, url: str) -> None:
        self.status = status
        self.server_message = message
        super().__init__(f"POST {url} failed with HTTP {status}: {message}")


class LLMUnavailable(LLMError):
    """Every attempt failed with a transient error (timeout, connection, 429, 5xx)."""

    def __init__(self, attempts: int, last_error: str) -> None:
        self.attempts = attempts
        self.last_error = last_error
        super().__init__(f"gave up after {attempts} attempt(s); last error: {last_error}")


class BudgetExceeded(LLMError):
    """The next call could take spending past the cap, so it was not made."""

    def __init__(self, cap_usd: float, spent_usd: float, worst_case_usd: float) -> None:
        self.cap_usd = cap_usd
        self.spent_usd = spent_usd
        self.worst_case_usd = worst_case_usd
        super().__init__(
            f"spending cap ${cap_usd:.4f} would be crossed: spent ${spent_usd:.4f}, "
            f"next call could cost up to ${worst_case_usd:.4f}"
        )


class ReplayMissing(LLMError):
    """Replay found no recorded reply for a request: the prompt, tools or parameters changed."""


class OfflineLLMError(LLMError):
    """The offline provider was asked for a completion; the offline planner never calls a model."""


class UnknownModelPrice(LLMError):
    """No price is known for a model on a paid endpoint, so the spending cap cannot be enforced."""
