"""Provider-neutral shapes of a chat call, in OpenAI's wire vocabulary, and the request hash.

`request_hash` is the key every recorded call is stored and replayed under. It is the SHA-256 (hex) of the
canonical JSON of `canonical_request`: `{"model", "messages", "tools", "parameters"}` where messages and tools
are in OpenAI wire form, parameters are temperature, max_tokens and any extra parameters (None left out), dumped
with sorted keys, no whitespace and UTF-8 text kept as is. Identical requests hash identically; any change to
the prompt, the tools or a parameter changes the hash. The provider and base URL are deliberately not part of
it, so a run recorded against one endpoint replays anywhere.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; `error` says why `raw_arguments` was not a JSON object."""

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    error: str = ""

    @classmethod
    def create(cls, id: str, name: str, arguments: dict[str, Any]) -> ToolCall:
        """Build a call from parsed arguments (tests, offline fixtures)."""
        return cls(id=id, name=name, arguments=dict(arguments), raw_arguments=json.dumps(arguments))

    @classmethod
    def from_openai(cls, data: dict[str, Any]) -> ToolCall:
        """Parse one entry of an OpenAI `tool_calls` list, keeping the model's exact argument text."""
        function = data.get("function") or {}
        raw = function.get("arguments", "")
        if isinstance(raw, dict):  # Ollama sends an object, OpenAI a string
            raw = json.dumps(raw)
        raw = raw or ""
        arguments: dict[str, Any] = {}
        error = ""
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            error = f"arguments are not valid JSON ({exc.msg} at position {exc.pos})"
        else:
            if isinstance(parsed, dict):
                arguments = parsed
            else:
                error = f"arguments must be a JSON object, got {type(parsed).__name__}"
        return cls(
            id=str(data.get("id", "")),
            name=str(function.get("name", "")),
            arguments=arguments,
            raw_arguments=raw,
            error=error,
        )

    def to_openai(self) -> dict[str, Any]:
        """Return the wire form; the raw argument text is sent back unchanged so prefixes stay identical."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.raw_arguments}}


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation (system, user, assistant or tool)."""

    role: str
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_openai(self) -> dict[str, Any]:
        """Return the wire form, leaving out fields that are not set."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        return data

    @classmethod
    def from_openai(cls, data: dict[str, Any]) -> ChatMessage:
        """Parse a wire-form message (as stored in a recorded request)."""
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=tuple(ToolCall.from_openai(call) for call in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
        )


@dataclass(frozen=True)
class ToolSpec:
    """An OpenAI function tool: a name, what it does, and a JSON schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        """Return the `tools` entry of a chat completions request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(frozen=True)
class ChatRequest:
    """Everything that decides a model's reply; `extra` carries provider parameters such as response_format.

    `temperature=None` leaves the server default (reasoning models accept no other); `max_tokens` is required
    because the spending cap needs a bound on the output.
    """

    model: str
    messages: tuple[ChatMessage, ...] | list[ChatMessage]
    tools: tuple[ToolSpec, ...] | list[ToolSpec] = ()
    temperature: float | None = None
    max_tokens: int = 4096
    extra: dict[str, Any] = field(default_factory=dict)

    def parameters(self) -> dict[str, Any]:
        """Return the sampling parameters that are set (temperature, max_tokens, extras)."""
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}
        return {key: value for key, value in params.items() if value is not None}


@dataclass(frozen=True)
class Usage:
    """Tokens billed for one reply; `input_tokens` includes the `cached_tokens` read from the prefix cache."""

    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class ChatResponse:
    """A model's reply: text and/or tool calls, why it stopped, and its usage."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)

    @property
    def truncated(self) -> bool:
        """Whether the reply was cut off at max_tokens (billed, but not a complete answer)."""
        return self.finish_reason == "length"

    def as_message(self) -> ChatMessage:
        """Return the assistant message to append to the conversation."""
        return ChatMessage(role="assistant", content=self.content, tool_calls=self.tool_calls)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON stored with a recorded call."""
        return {
            "content": self.content,
            "tool_calls": [call.to_openai() for call in self.tool_calls],
            "finish_reason": self.finish_reason,
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "cached_tokens": self.usage.cached_tokens,
                "output_tokens": self.usage.output_tokens,
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatResponse:
        """Rebuild a reply from its stored JSON."""
        usage = data.get("usage") or {}
        return cls(
            content=data.get("content"),
            tool_calls=tuple(ToolCall.from_openai(call) for call in data.get("tool_calls") or ()),
            finish_reason=data.get("finish_reason") or "stop",
            usage=Usage(
                input_tokens=int(usage.get("input_tokens", 0)),
                cached_tokens=int(usage.get("cached_tokens", 0)),
                output_tokens=int(usage.get("output_tokens", 0)),
            ),
        )


@dataclass(frozen=True)
class CallRecord:
    """One attempt at a model call, successful or not, as the trace and the replay store it."""

    request_hash: str
    provider: str
    model: str
    attempt: int
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    error: str = ""
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether this attempt produced a reply that replay may serve."""
        return not self.error and self.response is not None


def canonical_request(request: ChatRequest) -> dict[str, Any]:
    """Return the JSON-able request that is hashed and stored: model, messages, tools, parameters."""
    return {
        "model": request.model,
        "messages": [message.to_openai() for message in request.messages],
        "tools": [tool.to_openai() for tool in request.tools],
        "parameters": request.parameters(),
    }


def canonical_json(data: Any) -> str:
    """Dump JSON with sorted keys and no whitespace, so equal data gives equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_hash(request: ChatRequest) -> str:
    """Return the SHA-256 hex digest of the request's canonical JSON."""
    return hashlib.sha256(canonical_json(canonical_request(request)).encode("utf-8")).hexdigest()
