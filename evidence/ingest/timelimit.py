"""Parse in a separate process with a wall-clock limit and a memory cap, so no file can hang or exhaust a worker.

A hung thread cannot be killed and SIGALRM only works in a main thread, but a process can be killed. The parse
processes are long-lived (`parse_worker.py`): one is started the first time a worker thread or process needs
it and then reused file after file, so a small file costs a pipe round trip, not a new process. They are plain
subprocesses rather than multiprocessing children, which Celery's prefork pool forbids (its pool processes are
daemonic), so ingestion works the same under prefork, threads and solo. A process that times out, crashes or
runs out of memory is killed and replaced by a fresh one for the next file.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from .parse_worker import HEADER
from .parsers import parse_file
from .types import IngestError, Limits, ParsedDocument

ROOT = Path(__file__).resolve().parents[2]

Parser = Callable[[str, bytes, Limits], list[ParsedDocument]]


def parse_timeout_s() -> float:
    return float(settings.EVIDENCE_PARSE_TIMEOUT_S)


def parse_memory_bytes() -> int:
    return int(settings.EVIDENCE_PARSE_MEMORY_BYTES)


class ParseStopped(Exception):
    """The parse process had to be stopped or died; `reason` continues the file name as a predicate."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ParseProcess:
    """One long-lived `parse_worker` subprocess with a memory cap, spoken to over its stdin and stdout."""

    def __init__(self, memory_bytes: int) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "evidence.ingest.parse_worker", str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def parse(self, request: tuple[Parser, str, bytes, Limits], timeout_s: float) -> tuple[str, object]:
        """Send one request and wait for its answer; raise ParseStopped past the deadline or if the process dies."""
        assert self.process.stdin is not None and self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        body = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.process.stdin.write(HEADER.pack(len(body)) + body)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ParseStopped("crashed the parser (it may need more memory than a file may use)") from None
        fd = self.process.stdout.fileno()
        (size,) = HEADER.unpack(self._read(fd, HEADER.size, deadline, timeout_s))
        return pickle.loads(self._read(fd, size, deadline, timeout_s))

    def _read(self, fd: int, size: int, deadline: float, timeout_s: float) -> bytes:
        chunks: list[bytes] = []
        remaining = size
        while remaining:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ParseStopped(f"took longer than {timeout_s:g} s to parse and was stopped")
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                raise ParseStopped("crashed the parser (it may need more memory than a file may use)")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def close(self, kill: bool = False) -> None:
        """Stop the process: end of input lets an idle one exit; a busy or stuck one is killed."""
        if kill and self.alive():
            self.process.kill()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self.process.wait(0.5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)


class ParsePool:
    """Idle parse processes by memory cap; each caller takes one for a file and gives it back after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[int, list[ParseProcess]] = {}

    def take(self, memory_bytes: int) -> ParseProcess:
        with self._lock:
            idle = self._idle.setdefault(memory_bytes, [])
            while idle:
                process = idle.pop()
                if process.alive():
                    return process
                process.close()
        return ParseProcess(memory_bytes)

    def give_back(self, memory_bytes: int, process: ParseProcess) -> None:
        if not process.alive():
            process.close()
            return
        with self._lock:
            self._idle.setdefault(memory_bytes, []).append(process)

    def close_all(self) -> None:
        with self._lock:
            processes = [p for idle in self._idle.values() for p in idle]
            self._idle.clear()
        for process in processes:
            process.close()

    def forget(self) -> None:
        """After a fork: the processes belong to the parent, so the child starts with an empty pool."""
        self._lock = threading.Lock()
        self._idle = {}


_pool = ParsePool()
atexit.register(_pool.close_all)
os.register_at_fork(after_in_child=_pool.forget)


def parse_with_limits(
    filename: str,
    data: bytes,
    limits: Limits,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
    parser: Parser = parse_file,
) -> list[ParsedDocument]:
    """Parse one file like parse_file, in a parse process; raise IngestError past the time or memory limit."""
    timeout = parse_timeout_s() if timeout_s is None else timeout_s
    memory = parse_memory_bytes() if memory_bytes is None else memory_bytes
    process = _pool.take(memory)
    try:
        status, value = process.parse((parser, filename, data, limits), timeout)
    except ParseStopped as stopped:
        process.close(kill=True)
        raise IngestError(filename, stopped.reason, retryable="longer than" in stopped.reason) from None
    except BaseException:
        process.close(kill=True)  # interrupted mid-exchange: the pipe is out of step, never reuse it
        raise
    if status == "error" and "more memory" in value[1]:  # type: ignore[index]
        process.close(kill=True)  # it exits after such a file (a fresh heap for the next): never hand it out again
    else:
        _pool.give_back(memory, process)
    if status == "error":
        raise IngestError(*value)  # type: ignore[misc]
    return value  # type: ignore[return-value]
