"""Prices per model (USD per 1M tokens) and the cost of a call, actual and worst case.

Which price applies to a model, first match wins:
1. `prices` given by the caller (configuration), then the `LLM_PRICES` environment variable, a JSON object
   `{"model": [input, cached_input, output], ...}`: for unlisted models or negotiated rates;
2. the table below (OpenAI list prices; the gpt-5.x rows are Pi-Serini's appendix B);
3. a loopback base URL (vLLM, llama.cpp, Ollama on this machine) costs nothing: price 0;
4. otherwise `UnknownModelPrice`, raised before the call: a paid endpoint with no price would make the
   spending cap meaningless, so that is refused loudly rather than counted as free.
Model names are matched lowercased, without an `openai/` prefix or a `-YYYY-MM-DD` snapshot suffix.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlparse

from .errors import UnknownModelPrice
from .types import ChatRequest, Usage, canonical_json


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens: fresh input, cached input, output."""

    input: float
    cached_input: float
    output: float

    def cost(self, usage: Usage) -> float:
        """Return the USD cost of a reply's usage (cached tokens are part of the input tokens)."""
        cached = min(usage.cached_tokens, usage.input_tokens)
        fresh = usage.input_tokens - cached
        return (fresh * self.input + cached * self.cached_input + usage.output_tokens * self.output) / 1e6


FREE = Price(0.0, 0.0, 0.0)

PRICES: dict[str, Price] = {
    "gpt-4o": Price(2.50, 1.25, 10.00),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "gpt-4.1": Price(2.00, 0.50, 8.00),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-5": Price(1.25, 0.125, 10.00),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "o1": Price(15.00, 7.50, 60.00),
    "o3": Price(2.00, 0.50, 8.00),
    "o3-mini": Price(1.10, 0.55, 4.40),
    "o4-mini": Price(1.10, 0.275, 4.40),
    # Pi-Serini, appendix B (the prices its benchmark runs used)
    "gpt-5.2": Price(1.75, 0.175, 14.00),
    "gpt-5.3-codex": Price(1.75, 0.175, 14.00),
    "gpt-5.4": Price(2.50, 0.25, 15.00),
    "gpt-5.4-mini": Price(0.75, 0.075, 4.50),
    "gpt-5.5": Price(5.00, 0.50, 30.00),
}

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def normalize_model(model: str) -> str:
    """Return the table key for a model name: lowercased, no `openai/` prefix, no snapshot date."""
    name = model.strip().lower().removeprefix("openai/")
    return _SNAPSHOT.sub("", name)


def is_loopback(base_url: str | None) -> bool:
    """Whether a base URL points at this machine (a local server that bills nothing)."""
    host = urlparse(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def env_prices() -> dict[str, Price]:
    """Read extra prices from `LLM_PRICES`; a malformed value is an error, not silently ignored."""
    raw = os.environ.get("LLM_PRICES", "").strip()
    if not raw:
        return {}
    try:
        data = json.loads(raw)
        return {normalize_model(name): Price(*(float(v) for v in values)) for name, values in data.items()}
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(
            f'LLM_PRICES must be a JSON object like {{"my-model": [0.5, 0.25, 1.5]}} '
            f"(USD per 1M input, cached input, output tokens): {exc}"
        ) from exc


def price_for(model: str, *, base_url: str | None = None, prices: Mapping[str, Price] | None = None) -> Price:
    """Return the price of a model on an endpoint, or raise UnknownModelPrice (see the module docstring)."""
    key = normalize_model(model)
    for table in ({normalize_model(k): v for k, v in (prices or {}).items()}, env_prices(), PRICES):
        if key in table:
            return table[key]
    if is_loopback(base_url):
        return FREE
    raise UnknownModelPrice(
        f"no price known for model {model!r} at {base_url or 'an unknown endpoint'}: add it to LLM_PRICES "
        f"(e.g. LLM_PRICES='{{\"{key}\": [input, cached_input, output]}}', USD per 1M tokens) "
        "or pass prices= to the client"
    )


def cost(usage: Usage, model: str, *, price: Price | None = None) -> float:
    """Return the USD cost of a reply's usage for a model (table price unless one is given)."""
    return (price or price_for(model)).cost(usage)


def estimate_tokens(text: str) -> int:
    """Estimate tokens without a tokenizer: 4 ASCII characters per token, one per other character.

    Counting non-ASCII characters one each keeps the estimate from falling far short on Chinese text,
    where BPE tokenizers spend about a token per character.
    """
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return math.ceil((len(text) - non_ascii) / 4) + non_ascii


def estimate_prompt_tokens(request: ChatRequest) -> int:
    """Estimate a request's prompt tokens from the JSON of its messages and tools (JSON syntax pads it)."""
    messages = [m.to_openai() for m in request.messages]
    tools = [t.to_openai() for t in request.tools]
    return estimate_tokens(canonical_json(messages)) + estimate_tokens(canonical_json(tools) if tools else "")


def worst_case_cost(request: ChatRequest, model: str | None = None, *, price: Price | None = None) -> float:
    """Return the most a call could cost: estimated prompt tokens, all uncached, plus max_tokens of output."""
    price = price or price_for(model or request.model)
    return (estimate_prompt_tokens(request) * price.input + request.max_tokens * price.output) / 1e6
