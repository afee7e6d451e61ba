"""Ask a question: the form creates a run, queues it and sends the user to its live page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from ..forms import AskForm
from ..queueing import QUEUE_DOWN, RETRY_AFTER_S, enqueue_run, fail_unqueued


def ask(request: HttpRequest) -> HttpResponse:
    initial = {"collection": request.GET.get("collection"), "documents": request.GET.get("documents", "")}
    form = AskForm(request.POST or None, owner=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        run = form.create_run(request.user)  # committed here, so the worker sees the row it is sent
        try:
            enqueue_run(run.pk)
        except Exception as error:  # the broker is down: say so now, and leave no queued run behind
            fail_unqueued(run.pk, error)
            form.add_error(None, QUEUE_DOWN)
            response = render(request, "evidence/ask.html", {"form": form}, status=503)
            response["Retry-After"] = str(RETRY_AFTER_S)
            return response
        return redirect("run", pk=run.pk)
    return render(request, "evidence/ask.html", {"form": form}, status=400 if form.errors else 200)
