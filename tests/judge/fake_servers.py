"""Local fake Jev and OpenAI-compatible servers (http.server in a thread on 127.0.0.1, random port)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "test-key"
MAX_CALL_TOKENS = 64_000


def overlap(a: str, b: str) -> float:
    """Return the share of a's words found in b: the fake's notion of evidence."""
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    return len(wa & wb) / len(wa) if wa else 0.0


def answer(question: dict[str, Any], state: str) -> dict[str, Any]:
    """Answer one SPEC 4 question deterministically."""
    if question["type"] == "noul":
        return {"noul": round(min(0.99, 0.1 + overlap("evidence", question["instructions"]) * 0.8), 3)}
    if question["type"] == "choice":
        goal = question["instructions"].split("Goal:", 1)[-1]
        raw = {k: 0.05 + overlap(goal, v) for k, v in question["criteria"].items()}
        total = sum(raw.values())
        probs = {k: v / total for k, v in raw.items()}
        best = max(probs, key=probs.__getitem__)
        return {"choice": best, "probabilities": probs, "confidence": probs[best]}
    n = len(question["criteria"])
    probs = [0.1, 0.2, 0.3, 0.4][:n] if n == 4 else [1.0 / n] * n
    legend = {str(i): c for i, c in enumerate(question["criteria"])}
    return {"score": sum(i * p for i, p in enumerate(probs)), "legend": legend,
            "probabilities": probs, "confidence": max(probs)}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.server.requests.append({"path": self.path, "body": body})  # type: ignore[attr-defined]
        auth = self.headers.get("Authorization")
        if not auth:
            return self._send(403, {"error": {"type": "forbidden", "message": "missing key"}})
        if auth != f"Bearer {KEY}":
            return self._send(401, {"error": {"type": "unauthorized", "message": "bad key"}})
        if self.path == "/v1/systemone":
            return self._jev(body)
        if self.path == "/v1/chat/completions":
            return self._chat(body)
        return self._send(404, {"error": "not found"})

    def _jev(self, body: dict[str, Any]) -> None:
        state, questions = str(body.get("state", "")), body["questions"]
        if (len(state) + len(json.dumps(questions))) // 4 > MAX_CALL_TOKENS:
            return self._send(400, {"error": {"type": "max_tokens_exceeded", "message": "too long"}})
        answers = {qid: answer(q, state) for qid, q in questions.items()}
        self._send(200, {"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": len(state) // 4,
                                                                               "output_tokens": 10 * len(answers)}})

    def _chat(self, body: dict[str, Any]) -> None:
        user = body["messages"][-1]["content"]
        if len(user) // 4 > MAX_CALL_TOKENS:
            return self._send(400, {"error": {"code": "context_length_exceeded", "message": "too long"}})
        state, questions = user.split("\n\nQUESTIONS:\n", 1)
        answers = {qid: answer(q, state) for qid, q in json.loads(questions).items()}
        content = "```json\n" + json.dumps({"answers": answers}) + "\n```"
        self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}],
                         "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": 20}})


@contextmanager
def serve() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Run both fakes on one random port; yield (base url, recorded requests)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.requests  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
