"""Ask a question: the form creates a run, queues it and sends the user to its live page."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from ..forms import AskForm
from ..tasks import run_research


def ask(request: HttpRequest) -> HttpResponse:
    initial = {"collection": request.GET.get("collection"), "documents": request.GET.get("documents", "")}
    form = AskForm(request.POST or None, owner=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            run = form.create_run(request.user)
            # The worker must see the committed row, so the task is queued only at commit.
            transaction.on_commit(lambda: run_research.delay(run.pk))
        return redirect("run", pk=run.pk)
    return render(request, "evidence/ask.html", {"form": form}, status=400 if form.errors else 200)
