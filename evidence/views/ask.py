"""Ask a question: the form creates a run, queues it and sends the user to its live page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from ..forms import AskForm
from ..models import Collection, Document
from ..services import RETRY_AFTER_S, QuotaExceeded, runs

PICKER_RESULTS = 20


def chosen_documents(form: AskForm, owner) -> list[tuple[str, str, bool]]:
    """Return (docid, title, known) for the ids in the form's documents field, for the picker's chips."""
    raw = form["documents"].value() or ""
    docids = list(dict.fromkeys(d.strip() for d in str(raw).split(",") if d.strip()))
    if not docids:
        return []
    collection_id = form["collection"].value()
    titles = dict(
        Document.objects.filter(
            collection__owner=owner,
            collection_id=collection_id if str(collection_id).isdecimal() else 0,
            docid__in=docids,
        ).values_list("docid", "title")
    )
    return [(docid, titles.get(docid, docid), docid in titles) for docid in docids]


# What "Ask again" carries over from a run (the form's fields; a value the form does not offer is left out there).
ASK_AGAIN_FIELDS = ("collection", "question", "documents", "system", "searcher", "task")


def ask(request: HttpRequest) -> HttpResponse:
    initial = {key: request.GET[key] for key in ASK_AGAIN_FIELDS if request.GET.get(key)}
    form = AskForm(request.POST or None, owner=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            run = form.start_run(request.user)  # the runs service, as the API: quota, then the queue
        except QuotaExceeded as error:
            form.add_error(None, str(error))
            return render(
                request, "evidence/ask.html", {"form": form, "chosen": chosen_documents(form, request.user)}, status=429
            )
        except runs.QueueDown as error:  # the broker is down: say so now; the run was ended, not left queued
            form.add_error(None, str(error))
            response = render(
                request, "evidence/ask.html", {"form": form, "chosen": chosen_documents(form, request.user)}, status=503
            )
            response["Retry-After"] = str(RETRY_AFTER_S)
            return response
        return redirect("run", pk=run.pk)
    context = {"form": form, "chosen": chosen_documents(form, request.user)}
    return render(request, "evidence/ask.html", context, status=400 if form.errors else 200)


@require_GET
def document_search(request: HttpRequest) -> HttpResponse:
    """The picker's results: the chosen collection's documents whose title (or id) contains the words typed."""
    collection_id = request.GET.get("collection", "")
    collection = get_object_or_404(
        Collection, pk=int(collection_id) if collection_id.isdecimal() else 0, owner=request.user
    )
    query = " ".join(request.GET.get("q", "").split())[:200]
    documents = collection.documents.order_by("title")
    for word in query.split()[:8]:
        documents = documents.filter(title__icontains=word) | documents.filter(docid__icontains=word)
    rows = list(documents.values_list("docid", "title")[: PICKER_RESULTS + 1])
    return render(
        request,
        "evidence/_doc_results.html",
        {"rows": rows[:PICKER_RESULTS], "more": len(rows) > PICKER_RESULTS, "query": query},
    )
