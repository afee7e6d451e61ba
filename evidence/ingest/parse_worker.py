"""The long-lived parse process: `python -m evidence.ingest.parse_worker MEMORY_BYTES`.

It reads length-prefixed pickled requests `(parser, filename, data, limits)` from stdin and answers each with a
length-prefixed pickled `("ok", documents)` or `("error", (filename, reason))` on its original stdout. It is a
plain subprocess, not a multiprocessing child, so any Celery pool may start it (prefork's pool processes are
daemonic, and daemonic processes may not have multiprocessing children). See `timelimit.py` for the other end.
"""

from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

HEADER = struct.Struct("!Q")


def read_message(stream: BinaryIO) -> Any | None:
    """Read one length-prefixed pickle from stream; None at end of input (the parent went away)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)


def write_message(stream: BinaryIO, message: Any) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


def _exit_when_orphaned(parent: int) -> None:
    """End this process soon after its parent dies, even in the middle of a parse that never returns."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def answer(request: tuple[Any, str, bytes, Any]) -> tuple[str, Any]:
    """Run one parse request and return the message to send back."""
    from .types import IngestError

    parser, filename, data, limits = request
    try:
        return "ok", parser(filename, data, limits)
    except IngestError as error:
        return "error", (error.filename, error.reason)
    except MemoryError:
        return "error", (filename, "needs more memory to parse than a file may use: split it into smaller files")


def serve(memory_bytes: int) -> None:
    # Our answers go to the original stdout; anything a parser prints goes to stderr instead of the protocol.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = os.fdopen(os.dup(0), "rb")
    threading.Thread(target=_exit_when_orphaned, args=(os.getppid(),), daemon=True).start()
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    from . import parsers  # noqa: F401  (imported once here, not on the first file)

    while (request := read_message(requests)) is not None:
        status, value = answer(request)
        try:
            write_message(replies, (status, value))
        except MemoryError:
            # Too large to send back under the cap: say so, and start afresh for the next file.
            write_message(replies, ("error", (request[1], "needs more memory to parse than a file may use")))
            return
        if status == "error" and "more memory" in value[1]:
            return  # a fresh process for the next file rather than one with a fragmented heap


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
