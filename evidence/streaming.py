"""A run's events as JSON server-sent events, woken by Postgres LISTEN/NOTIFY (the API's stream).

Streams share the process's one LISTEN connection and its few reader threads (evidence.broadcast), so an open
stream costs no database connection of its own. Events are always read by seq after the last one sent: a lost
or merged NOTIFY can delay an event by one tick but never skip it, and a reconnecting client resumes from
Last-Event-ID.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import psycopg
from django.conf import settings
from django.db import connection, connections

from . import broadcast

TICK_S = 2.0  # re-read even without a NOTIFY (a listener can miss one across a Postgres restart)
KEEPALIVE_S = 15.0
FINISHED_GRACE_S = 10.0  # a finished run whose "finished" event never came is closed after this
BATCH = 500
TERMINAL_KINDS = {"finished"}

EVENTS_SQL = (
    "SELECT seq, kind, payload::text, created_at FROM evidence_runevent WHERE run_id = %s AND seq > %s "
    "ORDER BY seq LIMIT %s"
)
RUN_SQL = "SELECT status, last_seq, extract(epoch from now() - finished_at) FROM evidence_run WHERE id = %s"
ACTIVE = ("queued", "running")


def conninfo() -> str:
    """Return the connection string of Django's default database (the test database under pytest)."""
    s = connections["default"].settings_dict
    return psycopg.conninfo.make_conninfo(
        dbname=s["NAME"],
        user=s.get("USER") or None,
        password=s.get("PASSWORD") or None,
        host=s.get("HOST") or None,
        port=str(s["PORT"]) if s.get("PORT") else None,
    )


def max_stream_s() -> float:
    return float(getattr(settings, "EVIDENCE_SSE_MAX_S", 600.0))


def message(seq: int, kind: str, payload: str, created_at) -> str:
    """Format one event as an SSE message: id = seq, event = kind, data = the event as JSON."""
    data = (
        f'{{"seq": {seq}, "kind": {json.dumps(kind)}, "payload": {payload}, '
        f'"created_at": {json.dumps(created_at.isoformat())}}}'
    )
    return f"id: {seq}\nevent: {kind}\ndata: {data}\n\n"


def read_events(run_id: int, after: int) -> tuple[list[tuple], tuple | None]:
    """Return the run's event rows after `after` (one batch) and its (status, last_seq, finished_ago) row."""
    with connection.cursor() as cursor:
        cursor.execute(EVENTS_SQL, [run_id, after, BATCH])
        rows = cursor.fetchall()
        cursor.execute(RUN_SQL, [run_id])
        return rows, cursor.fetchone()


async def json_events(run_id: int, after: int, max_s: float | None = None) -> AsyncIterator[str]:
    """Yield the run's events after `after`, then each new one, until the run finishes or `max_s` passes."""
    deadline = time.monotonic() + (max_s if max_s is not None else max_stream_s())
    hub = broadcast.broadcaster()
    # Subscribe before reading the backlog, so an event committed in between wakes this stream.
    woken = hub.subscribe(run_id)
    try:
        yield "retry: 1000\n\n"
        last = after
        last_keepalive = time.monotonic()
        while True:
            rows, status = await broadcast.read(read_events, run_id, last)
            for seq, kind, payload, created_at in rows:
                yield message(seq, kind, payload, created_at)
                last = seq
                if kind in TERMINAL_KINDS:
                    return
            if len(rows) == BATCH:
                continue  # more backlog: send it before waiting
            if status is None:
                return  # the run was deleted
            state, last_seq, finished_ago = status
            if state not in ACTIVE and last >= last_seq and (finished_ago is None or finished_ago > FINISHED_GRACE_S):
                yield f"event: end\ndata: {json.dumps({'status': state, 'last_seq': last_seq})}\n\n"
                return
            if time.monotonic() > deadline:
                # Bounded streams free their slot; EventSource reconnects with Last-Event-ID.
                return
            await broadcast.wait_for_wake(woken, TICK_S)
            if time.monotonic() - last_keepalive > KEEPALIVE_S:
                last_keepalive = time.monotonic()
                yield ": keep-alive\n\n"
    finally:
        hub.unsubscribe(run_id, woken)


def last_seen(header: str | None, after: int | None) -> int:
    """Return where a stream resumes: Last-Event-ID (a reconnecting EventSource) wins over ?after=."""
    if header and header.strip().isdigit() and len(header.strip()) < 12:
        return int(header.strip())
    return after or 0
