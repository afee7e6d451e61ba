"""The run page's live stream: the HTML renderer of evidence.event_stream behind login and the stream cap."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse

from .. import broadcast
from ..event_stream import html_events, resume_point
from ..models import Run


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
    after = resume_point(request.headers.get("Last-Event-ID"), request.GET.get("after"))
    if run.is_finished and after >= run.last_seq:
        # 204 tells EventSource to stop reconnecting: there is nothing more to send.
        return HttpResponse(status=204)
    release = broadcast.reserve(user_id)
    if release is None:
        return too_many_streams(user_id)
    response = StreamingHttpResponse(html_events(run.pk, after), content_type="text/event-stream")
    response._resource_closers.append(release)  # Django closes the response when the stream ends or drops
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer a live stream
    return response
