"""The run page's live stream: evidence.streams' loop with the HTML renderer (timeline steps, metrics and
the finished panel), behind login and the stream cap."""

from __future__ import annotations

from collections.abc import AsyncIterator

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone

from .. import streams
from ..models import Run
from ..streams import FINISHED_GRACE_S, Batch, event_stream, resume_point
from . import timeline


def too_many_streams(user_id: int) -> HttpResponse:
    """Answer a stream over the user's cap: 429 with a sentence (EventSource stops; the page can be reloaded)."""
    sentence = streams.TOO_MANY.format(n=streams.max_streams_per_user())
    response = HttpResponse(sentence, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(streams.RETRY_AFTER_S)
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
    user_id, run = await streams.read(owner_and_run, request, pk)
    if user_id is None:
        return redirect_to_login(request.get_full_path())
    if run is None:
        raise Http404("No such run.")
    after = resume_point(request.headers.get("Last-Event-ID"), request.GET.get("after"))
    if run.is_finished and after >= run.last_seq:
        # 204 tells EventSource to stop reconnecting: there is nothing more to send.
        return HttpResponse(status=204)
    release = streams.reserve(user_id)
    if release is None:
        return too_many_streams(user_id)
    return streams.sse_response(html_events(run.pk, after), release)


# ------------------------------------------------------------------ the HTML renderer of the stream


def page_max_s() -> float:
    return float(settings.EVIDENCE_PAGE_SSE_MAX_S)


def read_html(run_id: int, after: int, idle: bool) -> Batch:
    """Render the events after `after` as timeline steps, then the metrics (also when idle: time moves), then
    the finished panel when the run has ended."""
    run = Run.objects.select_related("collection").get(pk=run_id)
    new = streams.events_after(run_id, after)
    messages = [
        timeline.sse_message("step", timeline.render_entries(run, [entry]), entry.seq)
        for entry in timeline.entries(run, new)
    ]
    last = new[-1].seq if new else after
    finished = any(e.kind == "finished" for e in new)
    if not finished and run.is_finished and run.finished_at and not new:
        finished = (timezone.now() - run.finished_at).total_seconds() > FINISHED_GRACE_S
    if new or idle or finished:
        messages.append(timeline.sse_message("metrics", timeline.render_metrics(run)))
    if finished:
        messages.append(timeline.sse_message("finished", render_to_string("evidence/_finished.html", {"run": run})))
    return Batch(messages, last, finished)


def html_events(run_id: int, after: int, max_s: float | None = None) -> AsyncIterator[str]:
    """The run page's stream: htmx swaps each step into the timeline."""
    return event_stream(run_id, after, read_html, page_max_s() if max_s is None else max_s)
