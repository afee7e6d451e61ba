"""Parse in a child process with a wall-clock limit and a memory cap, so no file can hang or exhaust a worker.

Signals (SIGALRM) only work in a main thread and Celery's thread pool has none, and a hung thread cannot be
killed; a child process can. The `forkserver` start method forks children from a small clean server process,
which is safe from a multi-threaded worker (plain fork is not) and much cheaper than spawning a fresh Python.
"""

from __future__ import annotations

import multiprocessing
import resource
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from django.conf import settings

from .parsers import parse_file
from .types import IngestError, Limits, ParsedDocument

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(["evidence.ingest.parsers"])


def parse_timeout_s() -> float:
    return float(getattr(settings, "EVIDENCE_PARSE_TIMEOUT_S", 60.0))


def parse_memory_bytes() -> int:
    return int(getattr(settings, "EVIDENCE_PARSE_MEMORY_BYTES", 2 * 1024**3))


Parser = Callable[[str, bytes, Limits], list[ParsedDocument]]


def _child(conn: Connection, parser: Parser, filename: str, data: bytes, limits: Limits, memory: int) -> None:
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        result: tuple[str, Any] = ("ok", parser(filename, data, limits))
    except IngestError as error:
        result = ("error", (error.filename, error.reason))
    except MemoryError:
        result = ("error", (filename, "needs more memory to parse than a file may use"))
    try:
        conn.send(result)
    except Exception as error:  # e.g. a result too large to pickle under the memory cap
        conn.send(("error", (filename, f"could not be parsed ({type(error).__name__})")))
    conn.close()


def parse_with_limits(
    filename: str,
    data: bytes,
    limits: Limits,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
    parser: Parser = parse_file,
) -> list[ParsedDocument]:
    """Parse one file like parse_file, in a child process; raise IngestError past the time or memory limit."""
    timeout = parse_timeout_s() if timeout_s is None else timeout_s
    memory = parse_memory_bytes() if memory_bytes is None else memory_bytes
    receiver, sender = _context.Pipe(duplex=False)
    child = _context.Process(target=_child, args=(sender, parser, filename, data, limits, memory), daemon=True)
    child.start()
    sender.close()  # only the child writes; closing ours lets recv() see EOF if the child dies
    try:
        if not receiver.poll(timeout):
            raise IngestError(filename, f"took longer than {timeout:g} s to parse and was stopped")
        try:
            status, value = receiver.recv()
        except EOFError:
            raise IngestError(filename, "crashed the parser (it may need more memory than a file may use)") from None
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join(5)
    if status == "error":
        raise IngestError(*value)
    return value
