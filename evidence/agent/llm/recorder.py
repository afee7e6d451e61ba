"""Where call records go: the Recorder protocol and an in-memory recorder for tests and scripts."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Protocol

from .types import CallRecord


class Recorder(Protocol):
    """Store every attempt; serve successful replies back by request hash for replay."""

    def record(self, call: CallRecord) -> None:
        """Store one attempt (successful or failed)."""
        ...

    def lookup(self, request_hash: str) -> CallRecord | None:
        """Return a successful recorded reply for the hash, or None.

        Successive lookups of one hash return successive recorded replies, in recording order (the last
        repeats), so a run that sent the same request twice and got two different replies replays exactly.
        """
        ...


class MemoryRecorder:
    """Keep records in a list (tests, scripts, evaluation dry runs)."""

    def __init__(self, records: list[CallRecord] | None = None) -> None:
        self.records: list[CallRecord] = list(records or [])
        self._served: defaultdict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def record(self, call: CallRecord) -> None:
        """Append one attempt."""
        with self._lock:
            self.records.append(call)

    def lookup(self, request_hash: str) -> CallRecord | None:
        """Return the next successful reply recorded under the hash."""
        with self._lock:
            replies = [r for r in self.records if r.request_hash == request_hash and r.ok]
            if not replies:
                return None
            index = min(self._served[request_hash], len(replies) - 1)
            self._served[request_hash] += 1
            return replies[index]
