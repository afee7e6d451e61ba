"""An append-only message history (so provider prefix caches hit) and the Pi-Serini final answer format."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .types import ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolSpec


class Conversation:
    """Messages in order; earlier messages are never changed, only new ones appended.

    Providers cache the longest identical prefix of a prompt, so rewriting an old message (trimming a tool
    output, editing the system prompt) would make every later call pay full price. A steer is a new user
    message for the same reason.
    """

    def __init__(self, system: str | None = None) -> None:
        self._messages: list[ChatMessage] = []
        if system is not None:
            self.append(ChatMessage(role="system", content=system))

    @property
    def messages(self) -> tuple[ChatMessage, ...]:
        """Return the history as an immutable tuple."""
        return tuple(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def append(self, message: ChatMessage) -> ChatMessage:
        """Append a message; a user message may not follow tool calls that have no result yet."""
        if message.role in ("user", "system") and self.pending_tool_calls():
            names = ", ".join(f"{c.name} ({c.id})" for c in self.pending_tool_calls())
            # The API rejects this with a 400; saying so here points at the line that forgot the results.
            raise ValueError(f"answer the pending tool calls first with add_tool_result: {names}")
        self._messages.append(message)
        return message

    def add_user(self, text: str) -> ChatMessage:
        """Append a user message."""
        return self.append(ChatMessage(role="user", content=text))

    def add_steer(self, text: str) -> ChatMessage:
        """Append a steer (e.g. "submit now") as a new user message."""
        return self.add_user(text)

    def add_assistant(self, response: ChatResponse) -> ChatMessage:
        """Append the model's reply, tool calls included, exactly as it came."""
        return self.append(response.as_message())

    def add_tool_result(self, call: ToolCall, content: str) -> ChatMessage:
        """Append the output of one tool call."""
        return self.append(ChatMessage(role="tool", content=content, tool_call_id=call.id, name=call.name))

    def pending_tool_calls(self) -> list[ToolCall]:
        """Return the last assistant message's tool calls that have no tool result yet."""
        answered: set[str] = set()
        for message in reversed(self._messages):
            if message.role == "tool" and message.tool_call_id is not None:
                answered.add(message.tool_call_id)
            elif message.role == "assistant":
                return [call for call in message.tool_calls if call.id not in answered]
        return []

    def request(
        self,
        model: str,
        *,
        tools: tuple[ToolSpec, ...] | list[ToolSpec] = (),
        temperature: float | None = None,
        max_tokens: int = 4096,
        **extra: Any,
    ) -> ChatRequest:
        """Return a request carrying the whole history."""
        return ChatRequest(
            model=model,
            messages=self.messages,
            tools=tuple(tools),
            temperature=temperature,
            max_tokens=max_tokens,
            extra=extra,
        )


class FinalAnswer(NamedTuple):
    """The parts of a final response; confidence is 0..1, or None when missing or unreadable."""

    explanation: str
    exact_answer: str
    confidence: float | None


# A label anywhere (models put all three on one line, or bold them: "**Exact Answer:**").
_LABEL = re.compile(r"[*_#]*\b(explanation|exact[ _]answer|confidence)\b[*_]*\s*:[*_]*", re.IGNORECASE)
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(%?)")


def parse_final_answer(text: str) -> FinalAnswer:
    """Parse "Explanation: ... Exact Answer: ... Confidence: NN%"; missing parts come back empty or None.

    With no labels at all the whole text is the explanation; text before the first label counts as the
    explanation when that label is missing. A repeated label takes its last occurrence (the final answer
    follows any thinking aloud).
    """
    matches = list(_LABEL.finditer(text or ""))
    if not matches:
        return FinalAnswer(_clean(text or ""), "", None)
    sections: dict[str, str] = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        key = match.group(1).lower().replace("_", " ").replace("exact answer", "exact")
        sections[key] = _clean(text[match.end() : end])
    explanation = sections.get("explanation", _clean(text[: matches[0].start()]))
    return FinalAnswer(explanation, sections.get("exact", ""), parse_confidence(sections.get("confidence", "")))


def parse_confidence(text: str) -> float | None:
    """Read "85%", "85" or "0.85" as 0.85; clamp to 0..1; None if there is no number."""
    match = _NUMBER.search(text)
    if not match:
        return None
    value = float(match.group(1))
    if match.group(2) or value > 1:
        value /= 100
    return min(1.0, max(0.0, value))


def _clean(part: str) -> str:
    part = part.strip().strip("*_").strip()
    if part.startswith("{") and part.endswith("}"):  # the prompt's template braces, copied literally
        part = part[1:-1].strip()
    return part
