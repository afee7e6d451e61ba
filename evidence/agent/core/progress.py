"""Progress while a step takes long, so a run never goes quiet: after `quiet_s` without an event, a `progress`
event says what the run is doing and how far along it is ("Preparing 412 sentences for reading: 120 of 412").

A long step declares itself with `step(what, total)` and reports with the function it yields; the run loop starts
one `Ticker` per run, which watches the run's events and speaks only when nothing else has for `quiet_s`. Progress
events are not steps of the research: the timeline shows the latest one as the run's current activity.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

PROGRESS = "progress"  # the event kind


@dataclass
class Activity:
    what: str
    total: int | None
    done: int = 0
    started: float = 0.0


class Ticker:
    """Emit a progress event whenever the run has been silent for `quiet_s` (from a thread, until stopped)."""

    def __init__(self, run_id: int, emit: Callable[..., Any], quiet_s: float) -> None:
        self.run_id, self._emit, self.quiet_s = run_id, emit, quiet_s
        self.lock = threading.Lock()
        self.last_event = time.monotonic()
        self.last_kind = ""
        self.activity: Activity | None = None
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def emit(self, run_id: int, kind: str, payload: dict[str, Any] | None = None) -> Any:
        """The run's emit, noting that the run spoke (pass this to the recorder and tools)."""
        result = self._emit(run_id, kind, payload)
        with self.lock:
            self.last_event = time.monotonic()
            if kind != PROGRESS:
                self.last_kind = kind
        return result

    def start(self) -> Ticker:
        self.thread = threading.Thread(target=self._loop, name=f"run-{self.run_id}-progress", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop speaking before the run's end is recorded (no progress ever follows `finished`)."""
        self.stopped.set()
        if self.thread is not None:
            self.thread.join(5)

    def payload(self, now: float) -> dict[str, Any]:
        with self.lock:
            activity = self.activity
            payload: dict[str, Any] = {"after": self.last_kind}
        if activity is not None:
            payload |= {"what": activity.what, "done": activity.done, "total": activity.total,
                        "elapsed_s": round(now - activity.started, 1)}  # fmt: skip
        return payload

    def _loop(self) -> None:
        from django.db import connection

        tick = min(0.25, self.quiet_s / 4)
        try:
            while not self.stopped.wait(tick):
                now = time.monotonic()
                with self.lock:
                    quiet = now - self.last_event >= self.quiet_s
                if not quiet:
                    continue
                try:
                    self.emit(self.run_id, PROGRESS, self.payload(now))
                except Exception:  # the database blinked: say it next time
                    log.warning("run %s: a progress event was not written", self.run_id)
                    connection.close()
                    with self.lock:
                        self.last_event = now
        finally:
            connection.close()


# The ticker of the run this thread is running (a worker thread runs one run at a time; pools it starts report
# nothing of their own, and the ticker still breaks their silence).
_current: ContextVar[Ticker | None] = ContextVar("evidence_progress_ticker", default=None)


def quiet_s() -> float:
    """Seconds of silence before a progress event (EVIDENCE_PROGRESS_QUIET_S; 0 turns progress events off)."""
    return float(settings.EVIDENCE_PROGRESS_QUIET_S)


@contextmanager
def ticking(run_id: int, emit: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """Watch a run's events while the block runs; yields the emit to use. Off when quiet_s() is 0."""
    if quiet_s() <= 0:
        yield emit
        return
    ticker = Ticker(run_id, emit, quiet_s()).start()
    token = _current.set(ticker)
    try:
        yield ticker.emit
    finally:
        ticker.stop()
        _current.reset(token)


@contextmanager
def step(what: str, total: int | None = None) -> Iterator[Callable[[int], None]]:
    """Declare a long step of the current run; yields `advance(done)`. A no-op outside a run."""
    ticker = _current.get()
    if ticker is None:
        yield lambda _done: None
        return
    activity = Activity(what, total, 0, time.monotonic())
    with ticker.lock:
        previous, ticker.activity = ticker.activity, activity

    def advance(done: int) -> None:
        activity.done = done

    try:
        yield advance
    finally:
        with ticker.lock:
            ticker.activity = previous
