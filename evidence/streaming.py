"""A run's events as JSON server-sent events, fed by Postgres LISTEN/NOTIFY (the API's stream).

One async psycopg connection per stream both listens and reads, so a stream costs one database connection
and no thread. Events are always read by seq after the last one sent: a lost or merged NOTIFY can delay an
event by one tick but never skip it, and a reconnecting client resumes from Last-Event-ID.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import psycopg
from django.conf import settings
from django.db import connections

from . import events

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


async def json_events(run_id: int, after: int, max_s: float | None = None) -> AsyncIterator[str]:
    """Yield the run's events after `after`, then each new one, until the run finishes or `max_s` passes."""
    deadline = time.monotonic() + (max_s if max_s is not None else max_stream_s())
    conn = await psycopg.AsyncConnection.connect(conninfo(), autocommit=True)
    try:
        # LISTEN before reading the backlog, so an event committed in between is never missed.
        await conn.execute(f"LISTEN {events.CHANNEL}")
        yield "retry: 1000\n\n"
        last = after
        last_keepalive = time.monotonic()
        while True:
            rows = await (await conn.execute(EVENTS_SQL, (run_id, last, BATCH))).fetchall()
            for seq, kind, payload, created_at in rows:
                yield message(seq, kind, payload, created_at)
                last = seq
                if kind in TERMINAL_KINDS:
                    return
            if len(rows) == BATCH:
                continue  # more backlog: send it before waiting
            status = await (await conn.execute(RUN_SQL, (run_id,))).fetchone()
            if status is None:
                return  # the run was deleted
            state, last_seq, finished_ago = status
            if state not in ACTIVE and last >= last_seq and (finished_ago is None or finished_ago > FINISHED_GRACE_S):
                yield f"event: end\ndata: {json.dumps({'status': state, 'last_seq': last_seq})}\n\n"
                return
            if time.monotonic() > deadline:
                # Bounded streams free their connection; EventSource reconnects with Last-Event-ID.
                return
            async for note in conn.notifies(timeout=TICK_S):
                if note.payload.partition(":")[0] == str(run_id):
                    break
            if time.monotonic() - last_keepalive > KEEPALIVE_S:
                last_keepalive = time.monotonic()
                yield ": keep-alive\n\n"
    finally:
        await conn.close()


def last_seen(header: str | None, after: int | None) -> int:
    """Return where a stream resumes: Last-Event-ID (a reconnecting EventSource) wins over ?after=."""
    if header and header.strip().isdigit() and len(header.strip()) < 12:
        return int(header.strip())
    return after or 0
