"""Pi-Serini backend URLs of a collection: create one (its secret shown once, on its own page), revoke one."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from ..models import Collection, PiseriniBackend
from .backends import base_url, create_backend, extension_config_json, revoke_backend, site_url


@require_POST
def create_url(request: HttpRequest, pk: int) -> HttpResponse:
    """Create a backend URL; this response is the only place its secret is ever shown."""
    collection = get_object_or_404(Collection, pk=pk, owner=request.user)
    backend, token = create_backend(collection)
    site = site_url(request)
    response = render(
        request,
        "evidence/piserini_created.html",
        {
            "collection": collection,
            "created_url": base_url(token, site),
            "created_config": extension_config_json(backend, token, site),
        },
    )
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def revoke_url(request: HttpRequest, pk: int) -> HttpResponse:
    backend = get_object_or_404(PiseriniBackend, pk=pk, owner=request.user)
    if revoke_backend(request.user, backend.pk):
        messages.success(request, "Backend URL revoked: Pi-Serini's requests to it now get 401.")
    else:
        messages.error(request, "That backend URL was already revoked.")
    return redirect("collection", pk=backend.collection_id)
