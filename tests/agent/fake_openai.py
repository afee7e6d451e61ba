"""A scripted OpenAI-compatible server on 127.0.0.1 (random port), run in a thread, for the LLM client tests.

Each POST to /chat/completions takes the next queued reply: a text or tool-call completion, an error status
(with Retry-After), a slow reply, or a reply computed from the request (large outputs). Every request received
is kept, headers and JSON body, so tests can count attempts and check what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Body = dict[str, Any] | str | Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Reply:
    """One scripted answer: status, JSON body (or a function of the request body), headers, delay."""

    status: int = 200
    body: Body = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    """Return an OpenAI usage object."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def completion(message: dict[str, Any], finish_reason: str, tokens: dict[str, Any]) -> dict[str, Any]:
    """Return a chat completion body with one choice."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": "fake-model-2025-01-01",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": tokens,
    }


def text(
    content: str, *, prompt: int = 50, completion_tokens: int = 10, cached: int = 0, finish_reason: str = "stop"
) -> Reply:
    """Reply with assistant text."""
    message = {"role": "assistant", "content": content}
    return Reply(body=completion(message, finish_reason, usage(prompt, completion_tokens, cached)))


def tool_calls(*calls: tuple[str, dict[str, Any] | str], prompt: int = 50, completion_tokens: int = 20) -> Reply:
    """Reply with tool calls, each (name, arguments dict or raw argument text)."""
    wire = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls, start=1)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": wire}
    return Reply(body=completion(message, "tool_calls", usage(prompt, completion_tokens)))


def error(status: int, message: str, *, retry_after: str | None = None) -> Reply:
    """Reply with an OpenAI-style error body."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, body={"error": {"message": message, "type": "fake_error"}}, headers=headers)


def slow(delay_s: float, reply: Reply) -> Reply:
    """Send a reply after a delay."""
    return replace(reply, delay_s=delay_s)


def large_output(prompt: int = 1000) -> Reply:
    """Reply using every output token the request allowed, cut off at the limit."""

    def body(request: dict[str, Any]) -> dict[str, Any]:
        limit = request.get("max_tokens") or request.get("max_completion_tokens") or 0
        return completion({"role": "assistant", "content": "x" * 100}, "length", usage(prompt, limit))

    return Reply(body=body)


class FakeOpenAI:
    """The server; use as a context manager, queue replies with `queue`, read `requests` afterwards."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.replies: deque[Reply] = deque()
        self.default: Reply | None = None  # served when the queue is empty
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False  # a slow reply nobody waits for must not hold up shutdown
        # A short poll interval so shutdown (which waits for one poll) takes milliseconds, not half a second.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *replies: Reply) -> None:
        """Add replies to serve, in order."""
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            if self.replies:
                return self.replies.popleft()
        return self.default or error(500, "fake server: no scripted reply left")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = fake._next(Received(self.path, dict(self.headers.items()), body))
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = reply.body(body) if callable(reply.body) else reply.body
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left; that is what the test wanted

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        return Handler
