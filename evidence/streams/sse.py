"""A run's live events as server-sent events: one loop and the JSON renderer of the API (the run page's HTML
renderer is views/stream.py's, which passes its own reader to `event_stream`).

Streams share the process's one LISTEN connection and its few reader threads (broadcast.py), so an open
stream costs no database connection of its own. Events are always read by seq after the last one sent: a lost
or merged NOTIFY can delay an event by one tick but never skip it, and a reconnecting client resumes from
Last-Event-ID. Every stream is bounded in time; EventSource reconnects where it left off.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.http import StreamingHttpResponse

from . import broadcast

TICK_S = 2.0  # re-read even without a NOTIFY (a listener can miss one across a Postgres restart; time moves)
KEEPALIVE_S = 15.0
FINISHED_GRACE_S = 10.0  # a finished run whose "finished" event never came is closed after this
BATCH = 500
ACTIVE = ("queued", "running")


@dataclass
class Batch:
    """What one read produced: messages to send, the last seq they cover, whether the stream is over, and
    whether more backlog is waiting (read again before waiting for a NOTIFY)."""

    messages: list[str]
    last_seq: int
    done: bool
    more: bool = False


ReadBatch = Callable[[int, int, bool], Batch]  # (run id, after seq, idle: no NOTIFY since the last read) -> Batch


def message(kind: str, data: str, seq: int | None = None) -> str:
    """Format one SSE message; multi-line data is sent as several data lines."""
    head = f"id: {seq}\n" if seq is not None else ""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"{head}event: {kind}\n{lines}\n"


async def event_stream(run_id: int, after: int, read: ReadBatch, max_s: float) -> AsyncIterator[str]:
    """Yield the backlog after `after`, then each new batch as its NOTIFY arrives, until done or `max_s`."""
    deadline = time.monotonic() + max_s
    hub = broadcast.broadcaster()
    # Subscribe before reading the backlog, so an event committed in between wakes this stream.
    woken = hub.subscribe(run_id)
    try:
        yield "retry: 1000\n\n"
        batch = await broadcast.read(read, run_id, after, True)
        last_keepalive = time.monotonic()
        while True:
            for text in batch.messages:
                yield text
            if batch.done:
                return
            if batch.more:
                batch = await broadcast.read(read, run_id, batch.last_seq, False)
                continue
            if time.monotonic() > deadline:
                return  # a bounded stream frees its slot; EventSource reconnects with Last-Event-ID
            woke = await broadcast.wait_for_wake(woken, min(TICK_S, max(deadline - time.monotonic(), 0.05)))
            if time.monotonic() - last_keepalive > KEEPALIVE_S:
                last_keepalive = time.monotonic()
                yield ": keep-alive\n\n"
            batch = await broadcast.read(read, run_id, batch.last_seq, not woke)
    finally:
        hub.unsubscribe(run_id, woken)


def sse_response(events: AsyncIterator[str], release: Callable[[], None]) -> StreamingHttpResponse:
    """The response of a live stream (the run page's and the API's): never cached, never buffered by a proxy, and
    its slot (`broadcast.reserve`) released when Django closes it, at the stream's end or when the client drops."""
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response._resource_closers.append(release)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def resume_point(last_event_id: str | None, after: str | int | None) -> int:
    """Return where a stream resumes: Last-Event-ID (a reconnecting EventSource) wins over ?after=."""
    for value in (last_event_id, after):
        text = str(value).strip() if value is not None else ""
        if text.isdecimal() and len(text) < 12:
            return int(text)
    return 0


# ------------------------------------------------------------------ the JSON renderer (the API)

EVENTS_SQL = (
    "SELECT seq, kind, payload::text, created_at FROM evidence_runevent WHERE run_id = %s AND seq > %s "
    "ORDER BY seq LIMIT %s"
)
RUN_SQL = "SELECT status, last_seq, extract(epoch from now() - finished_at) FROM evidence_run WHERE id = %s"


def api_max_s() -> float:
    return float(settings.EVIDENCE_SSE_MAX_S)


def json_message(seq: int, kind: str, payload: str, created_at) -> str:
    """One event as an SSE message: id = seq, event = kind, data = the event as JSON (payload passed through)."""
    data = (
        f'{{"seq": {seq}, "kind": {json.dumps(kind)}, "payload": {payload}, '
        f'"created_at": {json.dumps(created_at.isoformat())}}}'
    )
    return message(kind, data, seq)


def read_json(run_id: int, after: int, idle: bool) -> Batch:
    """Read the events after `after` as JSON messages; the stream ends at "finished" or when the run has ended."""
    with connection.cursor() as cursor:
        cursor.execute(EVENTS_SQL, [run_id, after, BATCH])
        rows = cursor.fetchall()
        cursor.execute(RUN_SQL, [run_id])
        status = cursor.fetchone()
    messages, last = [], after
    for seq, kind, payload, created_at in rows:
        messages.append(json_message(seq, kind, payload, created_at))
        last = seq
        if kind == "finished":
            return Batch(messages, last, done=True)
    if len(rows) == BATCH:
        return Batch(messages, last, done=False, more=True)
    if status is None:
        return Batch(messages, last, done=True)  # the run was deleted
    state, last_seq, finished_ago = status
    if state not in ACTIVE and last >= last_seq and (finished_ago is None or finished_ago > FINISHED_GRACE_S):
        messages.append(message("end", json.dumps({"status": state, "last_seq": last_seq})))
        return Batch(messages, last, done=True)
    return Batch(messages, last, done=False)


def json_events(run_id: int, after: int, max_s: float | None = None) -> AsyncIterator[str]:
    """The API's stream of a run."""
    return event_stream(run_id, after, read_json, api_max_s() if max_s is None else max_s)
