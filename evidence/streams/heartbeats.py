"""Liveness beats from a thread: a worker busy in one long step (a parse, a batch of embeddings, a model call)
still shows it is alive, and the beats stop with its process, so the reaper takes only work whose worker died."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)


@contextmanager
def beating(
    name: str, beat: Callable[[], object], every_s: float, for_at_most_s: float | None = None
) -> Iterator[None]:
    """Call `beat` every `every_s` seconds from a thread while the block runs (stopping after `for_at_most_s`)."""
    done = threading.Event()
    give_up_at = None if for_at_most_s is None else time.monotonic() + for_at_most_s

    def loop() -> None:
        from django.db import connection

        while not done.wait(every_s) and (give_up_at is None or time.monotonic() < give_up_at):
            try:
                beat()
            except Exception:  # the database blinked: drop the connection and beat again next time
                log.warning("%s missed a beat", name)
                connection.close()
        connection.close()

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(5)
