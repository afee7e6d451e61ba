"""Where call records go: the Recorder protocol, an in-memory recorder for tests and scripts, and the Django
recorder (ModelCall rows; Django is imported when one is used, so this package stays importable without it)."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import TYPE_CHECKING, Protocol

from .types import CallRecord

if TYPE_CHECKING:
    from evidence.models import ModelCall


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


class DjangoRecorder:
    """Write attempts to ModelCall rows of `run_id`; look up replies among the rows of `source_run_id`.

    Replay of run A into run B: `DjangoRecorder(run_id=B.pk, source_run_id=A.pk)`. Calls made outside any
    run (run_id None) are looked up among rows with no run when `source_run_id` is None.
    """

    def __init__(self, run_id: int | None = None, source_run_id: int | None = None) -> None:
        self.run_id = run_id
        self.source_run_id = source_run_id
        self._served: defaultdict[str, int] = defaultdict(int)

    def record(self, call: CallRecord) -> None:
        """Insert one row for the attempt."""
        from evidence.models import ModelCall

        ModelCall.objects.create(
            run_id=self.run_id,
            request_hash=call.request_hash,
            provider=call.provider,
            model=call.model[:100],
            attempt=call.attempt,
            request=call.request,
            response=call.response or {},
            error=call.error,
            input_tokens=call.input_tokens,
            cached_tokens=call.cached_tokens,
            output_tokens=call.output_tokens,
            cost_usd=call.cost_usd,
            latency_s=call.latency_s,
        )

    def lookup(self, request_hash: str) -> CallRecord | None:
        """Return the next successful recorded reply for the hash in the source run, in recording order."""
        from evidence.models import ModelCall

        rows = ModelCall.objects.filter(request_hash=request_hash, run_id=self.source_run_id, error="")
        replies = [row for row in rows.order_by("id") if row.response]
        if not replies:
            return None
        row = replies[min(self._served[request_hash], len(replies) - 1)]
        self._served[request_hash] += 1
        return to_record(row)


def to_record(row: ModelCall) -> CallRecord:
    """Convert a ModelCall row to a CallRecord."""
    return CallRecord(
        request_hash=row.request_hash,
        provider=row.provider,
        model=row.model,
        attempt=row.attempt,
        request=row.request,
        response=row.response or None,
        error=row.error,
        input_tokens=row.input_tokens,
        cached_tokens=row.cached_tokens,
        output_tokens=row.output_tokens,
        cost_usd=row.cost_usd,
        latency_s=row.latency_s,
    )
