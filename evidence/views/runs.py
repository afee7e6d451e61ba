"""The run page (live while running, complete without JS when finished), its polling fallback, the run list."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from .. import streams
from ..agent import SYSTEM_NAMES
from ..models import Collection, Run
from ..presenting import answers
from ..run_state import StoredAnswer
from ..services import runs as run_service
from . import timeline
from .statuses import status_choices, status_words


def run_context(run: Run) -> dict[str, object]:
    """Everything the run page shows: timeline, metrics, the answer with its citations."""
    citations = answers.run_citations(run)
    entries = timeline.entries(run, list(run.events.order_by("seq")))
    return {
        "run": run,
        "entries": entries,
        "after": entries[-1].seq if entries else 0,
        "citations": citations,
        "pieces": answers.answer_pieces(run, citations),
        "short": answers.short_answer_view(run),
        "scope": scope_documents(run),
        "thread": [(step, answers.short_answer_view(step)) for step in run_service.thread_of(run)],
        "ask_again": ask_again_url(run),
        "rejected_guess": rejected_guess(run),
        **timeline.metrics(run),
    }


def ask_again_url(run: Run) -> str:
    """The Ask page filled in as this run was asked: its question, collection, documents, system, searcher, task."""
    config = run.config or {}
    fields = {
        "collection": run.collection_id,
        "question": run.question,
        "documents": ",".join(str(d) for d in config.get("scope_docids") or []),
        "system": run.system,
        "searcher": config.get("searcher") or "",
        "task": run.task,
    }
    return f"{reverse('ask')}?{urlencode({k: v for k, v in fields.items() if v not in ('', None)})}"


def rejected_guess(run: Run) -> dict[str, object] | None:
    """A withheld answer's best guess and its chance of being right, for the research details only (never as the
    answer)."""
    stored = StoredAnswer.of(run)
    if stored.outcome != "no_short_answer" or not stored.candidate or stored.p_right is None:
        return None
    return {"text": stored.candidate, "percent": round(100 * stored.p_right)}


def scope_documents(run: Run) -> list[tuple[int, str]]:
    """Return (pk, title) of the documents the run was limited to, in the order given."""
    docids = [str(d) for d in (run.config or {}).get("scope_docids") or []]
    if not docids:
        return []
    rows = {
        docid: (pk, title or docid)
        for docid, pk, title in run.collection.documents.filter(docid__in=docids).values_list("docid", "pk", "title")
    }
    return [rows[d] for d in docids if d in rows]


@require_GET
def run_page(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    context = run_context(run)
    if request.htmx and request.GET.get("part") == "answer":
        return render(request, "evidence/run.html#answer", context)
    return render(request, "evidence/run.html", context)


@require_GET
def events_poll(request: HttpRequest, pk: int) -> HttpResponse:
    """Return the timeline entries after ?after=SEQ (the fallback for clients without SSE)."""
    run = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    after = request.GET.get("after", "0")
    new = streams.events_after(run.pk, int(after) if after.isdecimal() else 0)
    response = HttpResponse(timeline.render_entries(run, timeline.entries(run, new)))
    response["X-Last-Seq"] = str(new[-1].seq if new else after)
    response["X-Run-Finished"] = "true" if run.is_finished else "false"
    return response


@require_GET
def runs_list(request: HttpRequest) -> HttpResponse:
    runs = (
        Run.objects.filter(owner=request.user)
        .select_related("collection", "follows")
        .annotate(follow_up_count=Count("follow_ups"))
        .order_by("-created_at")
    )
    collections = Collection.objects.filter(owner=request.user).order_by("name")
    chosen = {key: request.GET.get(key, "") for key in ("collection", "system", "status")}
    if chosen["collection"].isdecimal():
        runs = runs.filter(collection_id=int(chosen["collection"]))
    if chosen["system"]:
        runs = runs.filter(system=chosen["system"])
    if chosen["status"]:
        runs = runs.filter(status=chosen["status"])
    page = Paginator(runs, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "rows": [(run, answers.short_answer_view(run)) for run in page.object_list],
        "collections": collections,
        "systems": SYSTEM_NAMES,
        "statuses": status_choices(),
        "chosen": chosen,
        "query": request.GET.urlencode(),
    }
    if request.htmx:
        return render(request, "evidence/runs.html#table", context)
    return render(request, "evidence/runs.html", context)


@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """Cancel one of your queued or running runs (the runs service, as the API's cancel)."""
    run = get_object_or_404(Run, pk=pk, owner=request.user)
    if run_service.cancel_run(run):
        messages.success(request, "The run is cancelled: it stops at its next step and keeps what it found.")
    else:
        messages.info(request, f"The run had already ended ({status_words(run.status).lower()}).")
    return redirect("run", pk=pk)


MAX_QUESTION_CHARS = 2000


@require_POST
def follow_up(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask a follow-up to one of your runs: same collection and documents, read in the light of the thread."""
    from ..services import QuotaExceeded

    parent = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    question = " ".join(request.POST.get("question", "").split())
    if not question:
        messages.error(request, "Type the follow-up question first.")
        return redirect("run", pk=pk)
    if len(question) > MAX_QUESTION_CHARS:
        messages.error(request, f"A question has at most {MAX_QUESTION_CHARS:,} characters: shorten it.")
        return redirect("run", pk=pk)
    try:
        run, _ = run_service.start_follow_up(request.user, parent, question)
    except (run_service.RunRefused, run_service.QueueDown, QuotaExceeded) as error:
        messages.error(request, f"The follow-up was not started: {error}")
        return redirect("run", pk=pk)
    return redirect("run", pk=run.pk)
