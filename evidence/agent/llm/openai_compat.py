"""The `openai` provider: any OpenAI-compatible chat completions endpoint, over httpx, retries in our code.

Retried: timeouts, connection errors, HTTP 429 and 5xx, and 200 replies we cannot parse. A `Retry-After`
(or OpenAI's `retry-after-ms`) header is honoured up to `retry_after_max_s`; otherwise the wait is exponential
backoff with jitter from a seeded RNG, so a test run waits the same way every time. Other 4xx answers are the
caller's mistake (bad key, bad parameter): raised at once as LLMHTTPError with the server's message.
Every attempt goes to the recorder, so retries show in the trace; the spending cap is checked before each one.
"""

from __future__ import annotations

import email.utils
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from .errors import LLMError, LLMHTTPError, LLMUnavailable
from .pricing import Price, estimate_prompt_tokens, estimate_tokens, is_loopback, normalize_model, price_for
from .pricing import worst_case_cost as _worst_case_cost
from .records import Recorder
from .spend import SpendingCap
from .types import CallRecord, ChatRequest, ChatResponse, ToolCall, Usage, canonical_request, request_hash

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# OpenAI's reasoning models reject `max_tokens` and want `max_completion_tokens`.
_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")


class _Retryable(Exception):
    """A transient failure; `retry_after` is the server's requested wait in seconds, if it gave one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OpenAIClient:
    """Call an OpenAI-compatible `/chat/completions` endpoint; see the module docstring for the retry policy."""

    provider = "openai"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        recorder: Recorder | None = None,
        cap: SpendingCap | None = None,
        prices: Mapping[str, Price] | None = None,
        timeout_s: float = 120.0,
        max_attempts: int = 4,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        retry_after_max_s: float = 60.0,
        seed: int = 0,
        sleep: Callable[[float], None] = time.sleep,
        max_tokens_field: str | None = None,
        deadline: float | None = None,
    ) -> None:
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        if not self.api_key and not is_loopback(self.base_url):
            raise LLMError(
                f"OPENAI_API_KEY is not set for {self.base_url}: set it, or use the 'offline' provider "
                "(or 'replay' for a recorded run)"
            )
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        self.recorder = recorder
        self.cap = cap
        self.prices = dict(prices or {})
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.retry_after_max_s = retry_after_max_s
        self.max_tokens_field = max_tokens_field
        # A time.monotonic() value: a retry that would have to wait past it gives up instead.
        self.deadline = deadline
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._http = httpx.Client(timeout=httpx.Timeout(timeout_s))
        self.calls = 0

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def price(self, model: str) -> Price:
        """Return the price this client charges a model at (UnknownModelPrice if it has none)."""
        return price_for(model, base_url=self.base_url, prices=self.prices)

    def worst_case_cost(self, request: ChatRequest) -> float:
        """Return the most the request could cost at this endpoint."""
        return _worst_case_cost(request, price=self.price(request.model))

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send the request, retrying transient failures; record every attempt."""
        self.calls += 1
        price = self.price(request.model)
        worst = _worst_case_cost(request, price=price)
        digest = request_hash(request)
        stored = canonical_request(request)
        body = self.wire_body(request)
        last_error = ""
        for attempt in range(1, self.max_attempts + 1):
            if self.cap is not None:
                self.cap.reserve(worst)
            actual = 0.0
            started = time.perf_counter()
            try:
                try:
                    data = self._post(body)
                    response, server_model = parse_completion(data, request)
                except _Retryable as exc:
                    last_error = str(exc)
                    self._record(digest, request.model, attempt, stored, None, last_error, started)
                    delay = self._delay(attempt, exc.retry_after)
                    if attempt == self.max_attempts or self._past_deadline(delay):
                        break
                    self._sleep(delay)
                    continue
                except LLMHTTPError as exc:
                    self._record(digest, request.model, attempt, stored, None, str(exc), started)
                    raise
                actual = price.cost(response.usage)
                recorded = {**response.to_dict(), "server_model": server_model}
                self._record(digest, request.model, attempt, stored, recorded, "", started, response.usage, actual)
                return response
            finally:
                if self.cap is not None:
                    self.cap.settle(worst, actual)
        raise LLMUnavailable(attempt, last_error)

    def wire_body(self, request: ChatRequest) -> dict[str, Any]:
        """Return the JSON body POSTed to /chat/completions."""
        field = self.max_tokens_field or (
            "max_completion_tokens" if _REASONING_MODEL.match(normalize_model(request.model)) else "max_tokens"
        )
        body: dict[str, Any] = {"model": request.model, "messages": [m.to_openai() for m in request.messages]}
        if request.tools:
            body["tools"] = [tool.to_openai() for tool in request.tools]
        if request.temperature is not None:
            body["temperature"] = request.temperature
        body[field] = request.max_tokens
        body.update(request.extra)
        return body

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            reply = self._http.post(self.url, json=body, headers=headers)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timeout after {self.timeout_s:g} s ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error ({type(exc).__name__}: {exc})") from exc
        status = reply.status_code
        if status == 429 or status >= 500:
            raise _Retryable(f"HTTP {status}: {server_message(reply)}", retry_after(reply.headers))
        if status >= 400:
            raise LLMHTTPError(status, server_message(reply), self.url)
        try:
            data = reply.json()
        except ValueError as exc:
            raise _Retryable(f"HTTP {status} with a body that is not JSON: {reply.text[:200]!r}") from exc
        if not isinstance(data, dict) or not data.get("choices"):
            raise _Retryable(f"HTTP {status} without choices: {reply.text[:200]!r}")
        return data

    def _delay(self, attempt: int, server_wait: float | None) -> float:
        if server_wait is not None:
            return min(max(server_wait, 0.0), self.retry_after_max_s)
        with self._rng_lock:
            jitter = self._rng.uniform(0.5, 1.0)
        return min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1)) * jitter

    def _past_deadline(self, wait_s: float) -> bool:
        return self.deadline is not None and time.monotonic() + wait_s >= self.deadline

    def _record(
        self,
        digest: str,
        model: str,
        attempt: int,
        stored: dict[str, Any],
        response: dict[str, Any] | None,
        error: str,
        started: float,
        usage: Usage | None = None,
        cost_usd: float = 0.0,
    ) -> None:
        if self.recorder is None:
            return
        usage = usage or Usage()
        self.recorder.record(
            CallRecord(
                request_hash=digest,
                provider=self.provider,
                model=model,
                attempt=attempt,
                request=stored,
                response=response,
                error=error,
                input_tokens=usage.input_tokens,
                cached_tokens=usage.cached_tokens,
                output_tokens=usage.output_tokens,
                cost_usd=cost_usd,
                latency_s=time.perf_counter() - started,
            )
        )


def server_message(reply: httpx.Response) -> str:
    """Return the error message a server gave (OpenAI's `{"error": {"message"}}` or the body text)."""
    try:
        data = reply.json()
    except ValueError:
        return reply.text[:500] or reply.reason_phrase
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if data.get("message"):
            return str(data["message"])
    return reply.text[:500]


def retry_after(headers: httpx.Headers) -> float | None:
    """Return the wait a server asked for, in seconds, from `retry-after-ms` or `Retry-After`."""
    if "retry-after-ms" in headers:
        try:
            return float(headers["retry-after-ms"]) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:  # the HTTP-date form
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def parse_completion(data: dict[str, Any], request: ChatRequest) -> tuple[ChatResponse, str]:
    """Turn a chat completions body into a ChatResponse (and the model name the server reported)."""
    choice = data["choices"][0]
    message = choice.get("message") or {}
    tool_calls = tuple(ToolCall.from_openai(call) for call in message.get("tool_calls") or ())
    content = message.get("content")
    finish_reason = choice.get("finish_reason") or ("tool_calls" if tool_calls else "stop")
    usage_data = data.get("usage")
    if usage_data:
        details = usage_data.get("prompt_tokens_details") or {}
        usage = Usage(
            input_tokens=int(usage_data.get("prompt_tokens") or 0),
            cached_tokens=int(details.get("cached_tokens") or 0),
            output_tokens=int(usage_data.get("completion_tokens") or 0),
        )
    else:
        # Some local servers omit usage; estimate rather than count the call as free.
        produced = (content or "") + "".join(call.name + call.raw_arguments for call in tool_calls)
        usage = Usage(input_tokens=estimate_prompt_tokens(request), output_tokens=estimate_tokens(produced))
    response = ChatResponse(content=content, tool_calls=tool_calls, finish_reason=finish_reason, usage=usage)
    return response, str(data.get("model") or "")
