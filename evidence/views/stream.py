"""The live event stream of a run: server-sent events fed by Postgres LISTEN/NOTIFY."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import psycopg
from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.loader import render_to_string
from django.utils import timezone

from .. import events
from ..models import Run
from ..streaming import conninfo
from . import timeline

TICK_S = 2.0  # metrics refresh (elapsed time moves even when no event arrives)
KEEPALIVE_S = 15.0
STALE_FINISH_S = 10.0  # a finished run whose "finished" event never came is closed after this


@dataclass
class Batch:
    messages: list[str]
    last_seq: int
    done: bool


def read_batch(run_id: int, after: int, with_metrics: bool) -> Batch:
    """Render the run's events after `after` as SSE messages, then the metrics, then the end when finished."""
    run = Run.objects.select_related("collection").get(pk=run_id)
    new = events.events_after(run_id, after)
    messages = [
        timeline.sse_message("step", timeline.render_entries(run, [entry]), entry.seq)
        for entry in timeline.entries(run, new)
    ]
    last = new[-1].seq if new else after
    finished = any(e.kind == "finished" for e in new)
    if not finished and run.is_finished and run.finished_at and not new:
        finished = (timezone.now() - run.finished_at).total_seconds() > STALE_FINISH_S
    if new or with_metrics or finished:
        messages.append(timeline.sse_message("metrics", timeline.render_metrics(run)))
    if finished:
        messages.append(timeline.sse_message("finished", render_to_string("evidence/_finished.html", {"run": run})))
    return Batch(messages, last, finished)


def last_seen(request: HttpRequest) -> int:
    """The last seq the client has: Last-Event-ID (a browser reconnecting) wins over ?after=."""
    for value in (request.headers.get("Last-Event-ID"), request.GET.get("after")):
        if value and value.strip().isdigit():
            return int(value)
    return 0


async def stream_events(run_id: int, after: int) -> AsyncIterator[str]:
    """Yield the backlog after `after`, then each new event as its NOTIFY arrives, until the run finishes."""
    read = sync_to_async(read_batch, thread_sensitive=True)
    conn = await psycopg.AsyncConnection.connect(conninfo(), autocommit=True)
    try:
        # LISTEN before reading the backlog, so an event committed in between is never missed.
        await conn.execute(f"LISTEN {events.CHANNEL}")
        yield "retry: 1000\n\n"
        batch = await read(run_id, after, True)
        last_keepalive = time.monotonic()
        while True:
            for message in batch.messages:
                yield message
            if batch.done:
                return
            woke = False
            async for note in conn.notifies(timeout=TICK_S):
                if note.payload.partition(":")[0] == str(run_id):
                    woke = True
                    break
            if time.monotonic() - last_keepalive > KEEPALIVE_S:
                last_keepalive = time.monotonic()
                yield ": keep-alive\n\n"
            # Always read by seq after the last one sent: a missed or merged NOTIFY cannot skip an event.
            batch = await read(run_id, batch.last_seq, not woke)
    finally:
        await conn.close()
        await sync_to_async(close_old_connections, thread_sensitive=True)()


async def stream(request: HttpRequest, pk: int) -> HttpResponse:
    """Stream a run's events as server-sent events (resuming after Last-Event-ID or ?after=)."""
    user = await request.auser()
    run = await Run.objects.filter(pk=pk, owner=user).only("pk", "status", "last_seq").afirst()
    if run is None:
        raise Http404("No such run.")
    after = last_seen(request)
    if run.is_finished and after >= run.last_seq:
        # 204 tells EventSource to stop reconnecting: there is nothing more to send.
        return HttpResponse(status=204)
    response = StreamingHttpResponse(stream_events(run.pk, after), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer a live stream
    return response
