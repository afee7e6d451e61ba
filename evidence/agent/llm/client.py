"""The one interface System 2 calls models through, and the factory that picks a provider by name."""

from __future__ import annotations

from typing import Any, Protocol

from .errors import OfflineLLMError
from .openai_compat import OpenAIClient
from .records import Recorder
from .replay import ReplayClient
from .spend import SpendingCap
from .types import ChatRequest, ChatResponse

PROVIDERS = ("openai", "replay", "offline")


class LLMClient(Protocol):
    """Anything that turns a chat request into a reply."""

    provider: str

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Return the model's reply to the request."""
        ...


class OfflineClient:
    """The client of the offline planner, which never calls a model: any call is a bug, so it fails loudly."""

    provider = "offline"

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Refuse: the offline system has no language model."""
        raise OfflineLLMError(
            f"the 'offline' provider cannot complete a request (model {request.model}): the offline planner "
            "never calls a language model. Choose the 'openai' provider with OPENAI_API_KEY set, or 'replay'"
        )


def make_client(
    provider: str,
    *,
    recorder: Recorder | None = None,
    cap: SpendingCap | None = None,
    source: Recorder | None = None,
    **options: Any,
) -> LLMClient:
    """Build the client for a provider name; `source` is the recording a replay reads from.

    `options` go to the provider: for `openai` base_url, api_key, prices, timeout_s, max_attempts, seed...
    (see OpenAIClient); for `replay` prices.
    """
    if provider == "openai":
        return OpenAIClient(recorder=recorder, cap=cap, **options)
    if provider == "replay":
        if source is None:
            raise ValueError("the 'replay' provider needs source=, the recorder holding the original run's calls")
        return ReplayClient(source, recorder=recorder, cap=cap, **options)
    if provider == "offline":
        return OfflineClient()
    raise ValueError(f"unknown LLM provider {provider!r}: use one of {', '.join(PROVIDERS)}")
