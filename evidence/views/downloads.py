"""Take a run's answer away: Markdown, BibTeX or CSL-JSON of what it cites (the page's links and the API)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from ..models import Run
from ..presenting import FORMATS, export_response


@require_GET
def export_run(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """Download the run's answer as Markdown (`md`), or its cited papers as BibTeX (`bib`) or CSL-JSON (`json`)."""
    run = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    by_extension = {extension: name for name, (_, extension) in FORMATS.items()}
    if fmt not in by_extension:
        raise Http404("no such export format")
    return export_response(run, by_extension[fmt], request.build_absolute_uri)
