"""The live event stream of a run: server-sent events woken by the process's one LISTEN (evidence.broadcast)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.loader import render_to_string
from django.utils import timezone

from .. import broadcast, events
from ..models import Run
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


def page_stream_max_s() -> float:
    return float(getattr(settings, "EVIDENCE_PAGE_SSE_MAX_S", 300.0))


async def stream_events(run_id: int, after: int, max_s: float | None = None) -> AsyncIterator[str]:
    """Yield the backlog after `after`, then each new event as its NOTIFY arrives, until the run finishes.

    A page stream ends after `max_s` (5 minutes); the browser's EventSource reconnects with Last-Event-ID.
    """
    deadline = time.monotonic() + (max_s if max_s is not None else page_stream_max_s())
    hub = broadcast.broadcaster()
    # Subscribe before reading the backlog, so an event committed in between wakes this stream.
    woken = hub.subscribe(run_id)
    try:
        yield "retry: 1000\n\n"
        batch = await broadcast.read(read_batch, run_id, after, True)
        last_keepalive = time.monotonic()
        while True:
            for message in batch.messages:
                yield message
            if batch.done or time.monotonic() > deadline:
                return
            woke = await broadcast.wait_for_wake(woken, min(TICK_S, max(deadline - time.monotonic(), 0.05)))
            if time.monotonic() - last_keepalive > KEEPALIVE_S:
                last_keepalive = time.monotonic()
                yield ": keep-alive\n\n"
            # Always read by seq after the last one sent: a missed or merged NOTIFY cannot skip an event.
            batch = await broadcast.read(read_batch, run_id, batch.last_seq, not woke)
    finally:
        hub.unsubscribe(run_id, woken)


def too_many_streams(user_id: int) -> HttpResponse:
    """Answer a stream over the user's cap: 429 with a sentence (EventSource stops; the page can be reloaded)."""
    sentence = broadcast.TOO_MANY.format(n=broadcast.max_streams_per_user())
    response = HttpResponse(sentence, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(broadcast.RETRY_AFTER_S)
    return response


def owner_and_run(request: HttpRequest, pk: int) -> tuple[int | None, Run | None]:
    """Return the signed-in user's id and their run `pk` (None, None when signed out)."""
    user = request.user
    if not user.is_authenticated:
        return None, None
    return user.pk, Run.objects.filter(pk=pk, owner=user).only("pk", "status", "last_seq").first()


@login_not_required  # checked below on the stream readers' connections, not on a connection per request
async def stream(request: HttpRequest, pk: int) -> HttpResponse:
    """Stream a run's events as server-sent events (resuming after Last-Event-ID or ?after=)."""
    # The session and run lookups go through the few shared readers: 200 streams opened at once would
    # otherwise open 200 Postgres connections, one per request thread, and get "too many clients".
    user_id, run = await broadcast.read(owner_and_run, request, pk)
    if user_id is None:
        return redirect_to_login(request.get_full_path())
    if run is None:
        raise Http404("No such run.")
    after = last_seen(request)
    if run.is_finished and after >= run.last_seq:
        # 204 tells EventSource to stop reconnecting: there is nothing more to send.
        return HttpResponse(status=204)
    release = broadcast.reserve(user_id)
    if release is None:
        return too_many_streams(user_id)
    response = StreamingHttpResponse(stream_events(run.pk, after), content_type="text/event-stream")
    response._resource_closers.append(release)  # Django closes the response when the stream ends or drops
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer a live stream
    return response
