"""The reader model's own process: loads a GGUF once and answers prompts as JSON lines on stdin/stdout.

    python -m evidence.reader.host MODEL.gguf --threads 2 [--lock FILE]

It runs apart from the worker so that a crash or an out-of-memory kill of the model loses no run (the caller
falls back to the extractive answer and starts a new host). It imports no Django. Decoding is greedy, one token
at a time, with the log-probability of each chosen token and of a few alternatives for the first one; the
instruction's state is kept between prompts (only the tokens after the common prefix are evaluated). `--lock`
names a file locked around each prompt, so the hosts of several worker processes never run the model at once
and fight over the same cores.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

_NUMBER = re.compile(r"^\s*\[\s*\d*\s*\]?")  # a reply's leading "[n]"
PROMPT_CHUNK = 256  # prompt tokens evaluated between deadline checks
N_CTX = 2048
ALTERNATIVES = 5  # the most likely tokens recorded at each step (the confidence reads them)


class Model:
    """One loaded GGUF with a greedy decoder that keeps the longest common prefix between prompts."""

    def __init__(self, path: str, threads: int) -> None:
        from llama_cpp import Llama

        self.llm = Llama(
            model_path=path, n_ctx=N_CTX, n_threads=threads, n_threads_batch=threads, n_batch=256,
            use_mmap=True, logits_all=False, verbose=False, flash_attn=True,
        )  # fmt: skip
        self.vocab = self.llm.n_vocab()
        ends = [self.tokens(end) for end in ("<|im_end|>", "<|endoftext|>")]
        self.stops = {self.llm.token_eos(), *(t[0] for t in ends if len(t) == 1)}

    def tokens(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def piece(self, token: int) -> str:
        return self.llm.detokenize([token]).decode("utf-8", errors="replace")

    def _last_logits(self) -> np.ndarray:
        import llama_cpp

        pointer = llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self.vocab,)).astype(np.float64)

    def _feed(self, tokens: list[int], deadline: float) -> tuple[int, int]:
        """Evaluate the prompt after its common prefix with the last one; return (evaluated, reused) counts."""
        held = list(self.llm.input_ids[: self.llm.n_tokens])
        common = 0
        for a, b in zip(held, tokens, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(tokens) - 1)  # at least one token is evaluated, so its logits are fresh
        self.llm.n_tokens = common
        rest = tokens[common:]
        for i in range(0, len(rest), PROMPT_CHUNK):
            if time.monotonic() > deadline:
                self.llm.n_tokens = common  # a half-read prompt is not kept as a prefix
                raise TimeoutError("the reader ran out of time reading the prompt")
            self.llm.eval(rest[i : i + PROMPT_CHUNK])
        return len(rest), common

    def complete(self, prompt: str, max_tokens: int, deadline: float) -> dict[str, Any]:
        """Greedy completion of the prompt with each token's log-probability."""
        started = time.monotonic()
        tokens = self.tokens(prompt)
        if len(tokens) + max_tokens > N_CTX:
            raise ValueError(f"the prompt has {len(tokens)} tokens, more than the reader's {N_CTX - max_tokens}")
        evaluated, reused = self._feed(tokens, deadline)
        prompt_s = time.monotonic() - started
        steps: list[dict[str, Any]] = []
        chosen: list[int] = []
        for _ in range(max_tokens):
            logits = self._last_logits()
            top = logits.max()
            logp = logits - (top + np.log(np.exp(logits - top).sum()))
            token = int(np.argmax(logp))
            if token in self.stops:
                break
            piece = self.piece(token)
            if "\n" in piece and answered(self.llm.detokenize(chosen).decode("utf-8", errors="replace")):
                break  # a line break before the answer itself ("[2]\n3.9%") is read past
            best = np.argpartition(-logp, ALTERNATIVES)[:ALTERNATIVES]
            best = best[np.argsort(-logp[best])]
            steps.append({
                "piece": piece, "logprob": round(float(logp[token]), 4),
                "top": [[self.piece(int(t)), round(float(logp[t]), 4)] for t in best],
            })  # fmt: skip
            chosen.append(token)
            if time.monotonic() > deadline:
                raise TimeoutError("the reader ran out of time writing the answer")
            self.llm.eval([token])
        return {
            "text": self.llm.detokenize(chosen).decode("utf-8", errors="replace"),
            "steps": steps,
            "prompt_tokens": len(tokens),
            "evaluated_tokens": evaluated,
            "reused_tokens": reused,
            "prompt_s": round(prompt_s, 4),
            "total_s": round(time.monotonic() - started, 4),
        }


def answered(text: str) -> bool:
    """Whether a reply so far has words beyond its leading "[n]"."""
    return any(ch.isalnum() for ch in _NUMBER.sub("", text, count=1))


@contextlib.contextmanager
def locked(path: str | None) -> Iterator[None]:
    if not path:
        yield
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def serve(model: Model, lock: str | None, stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    """Answer one JSON request a line until stdin closes."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            deadline = time.monotonic() + float(request.get("timeout_s", 60.0))
            with locked(lock):
                reply = model.complete(request["prompt"], int(request.get("max_tokens", 32)), deadline)
        except TimeoutError as error:
            reply = {"error": str(error), "timeout": True}
        except Exception as error:  # the caller falls back; the host stays up for the next prompt
            reply = {"error": f"{type(error).__name__}: {error}"}
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--lock", default=None)
    args = parser.parse_args(argv)
    started = time.monotonic()
    model = Model(args.model, args.threads)
    sys.stdout.write(json.dumps({"ready": True, "load_s": round(time.monotonic() - started, 3)}) + "\n")
    sys.stdout.flush()
    serve(model, args.lock)


if __name__ == "__main__":
    main()
