"""The signed-in home page: the ask form, the user's collections and latest runs."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ..forms import AskForm
from ..models import Collection, Run
from ..presenting import short_answer_view


def home(request: HttpRequest) -> HttpResponse:
    collections = Collection.objects.filter(owner=request.user).order_by("name")
    runs = Run.objects.filter(owner=request.user).select_related("collection").order_by("-created_at")[:10]
    rows = [(run, short_answer_view(run)) for run in runs]
    return render(
        request, "evidence/home.html", {"collections": collections, "rows": rows, "form": AskForm(owner=request.user)}
    )
