"""Where the reader's completions come from: the local model's host process, or an OpenAI-compatible endpoint.

Both return a Completion: the reply's text, each token's log-probability, and the first token's alternatives
(the evidence for the confidence). A backend that fails raises ReaderUnavailable; the caller answers with the
extractive layer instead, and says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .prompt import chatml


class ReaderUnavailable(RuntimeError):
    """The reader could not answer (not installed, crashed, timed out); the message says why, in one sentence."""


@dataclass(frozen=True)
class Step:
    """One generated token: its text, its log-probability, and the most likely tokens at that step."""

    piece: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Completion:
    text: str
    steps: list[Step]
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    seconds: float = 0.0


class HostBackend:
    """The local GGUF model in a process of its own (evidence/reader/host.py), started on first use."""

    def __init__(self, model: Path, threads: int, lock: Path | None = None) -> None:
        self.model, self.threads, self.lock = model, threads, lock
        self.process: subprocess.Popen[str] | None = None
        self.load_s: float | None = None
        self.mutex = threading.Lock()  # one prompt at a time per process: a thread pool shares the host

    def _start(self) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "evidence.reader.host", str(self.model), "--threads", str(self.threads)]
        if self.lock:
            command += ["--lock", str(self.lock)]
        root = Path(__file__).resolve().parents[2]
        process = subprocess.Popen(
            command, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )  # fmt: skip
        ready = self._line(process, 120.0)
        if not ready.get("ready"):
            process.kill()
            raise ReaderUnavailable(f"the local reader did not start: {ready.get('error', 'no answer')}")
        self.load_s = float(ready.get("load_s", 0.0))
        return process

    @staticmethod
    def _line(process: subprocess.Popen[str], timeout_s: float) -> dict[str, Any]:
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(process.stdout.readline() if process.stdout else ""))
        reader.daemon = True
        reader.start()
        reader.join(timeout_s)
        if reader.is_alive():
            process.kill()
            raise ReaderUnavailable(f"the local reader gave no answer within {timeout_s:.0f} s")
        if not box or not box[0]:
            raise ReaderUnavailable(f"the local reader's process ended (exit code {process.poll()})")
        return json.loads(box[0])

    def complete(self, system: str, user: str, max_tokens: int, timeout_s: float) -> Completion:
        with self.mutex:
            started = time.monotonic()
            if self.process is None or self.process.poll() is not None:
                self.process = self._start()
            request = {
                "prompt": chatml(system, user), "max_tokens": max_tokens,
                "timeout_s": max(0.1, timeout_s - (time.monotonic() - started)),
            }  # fmt: skip
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(json.dumps(request) + "\n")
                self.process.stdin.flush()
                reply = self._line(self.process, timeout_s + 5.0)
            except (BrokenPipeError, OSError, ValueError) as error:
                self.close()
                raise ReaderUnavailable(f"the local reader's process failed: {error}") from error
            except ReaderUnavailable:
                self.close()
                raise
            if "error" in reply:
                raise ReaderUnavailable(str(reply["error"]))
            return Completion(
                text=str(reply["text"]),
                steps=[
                    Step(str(s["piece"]), float(s["logprob"]), tuple((str(t), float(p)) for t, p in s["top"]))
                    for s in reply["steps"]
                ],
                prompt_tokens=int(reply.get("prompt_tokens", 0)),
                evaluated_tokens=int(reply.get("evaluated_tokens", 0)),
                seconds=time.monotonic() - started,
            )

    def rss_mb(self) -> float | None:
        """The host process's resident memory (the model is memory-mapped, so its pages are shared)."""
        if self.process is None or self.process.poll() is not None:
            return None
        import psutil

        return psutil.Process(self.process.pid).memory_info().rss / 2**20

    def close(self) -> None:
        if self.process is not None:
            with_suppressed(self.process.kill)
            with_suppressed(self.process.wait)
        self.process = None


class EndpointBackend:
    """An OpenAI-compatible chat endpoint (a local llama.cpp server, Ollama, or a hosted model)."""

    def __init__(self, base_url: str, model: str, api_key: str = "") -> None:
        self.base_url, self.model, self.api_key = base_url.rstrip("/"), model, api_key

    def complete(self, system: str, user: str, max_tokens: int, timeout_s: float) -> Completion:
        import httpx

        started = time.monotonic()
        body = {
            "model": self.model, "max_tokens": max_tokens, "temperature": 0, "logprobs": True, "top_logprobs": 5,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}], "stop": ["\n"],
        }  # fmt: skip
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            response = httpx.post(f"{self.base_url}/chat/completions", json=body, headers=headers, timeout=timeout_s)
            response.raise_for_status()
            choice = response.json()["choices"][0]
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as error:
            raise ReaderUnavailable(f"the reader endpoint {self.base_url} failed: {error}") from error
        content = (choice.get("logprobs") or {}).get("content") or []
        steps = [
            Step(
                str(t.get("token", "")), float(t.get("logprob", 0.0)),
                tuple((str(a.get("token", "")), float(a.get("logprob", -99.0))) for a in t.get("top_logprobs", [])),
            )
            for t in content
        ]  # fmt: skip
        return Completion(str(choice["message"].get("content") or ""), steps, seconds=time.monotonic() - started)

    def close(self) -> None:
        return None


def with_suppressed(call: Any) -> None:
    with contextlib.suppress(Exception):  # closing a dead process
        call()
