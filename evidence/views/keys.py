"""API keys: create one (its secret shown once), list them by prefix, revoke one."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ..auth_keys import create_key, revoke_key
from ..models import ApiKey


class KeyForm(forms.Form):
    name = forms.CharField(max_length=100, widget=forms.TextInput(attrs={"placeholder": "e.g. laptop script"}))


def keys(request: HttpRequest) -> HttpResponse:
    """List the user's keys and create a new one; the new key's secret is rendered in this response only."""
    form = KeyForm(request.POST or None)
    created: str | None = None
    if request.method == "POST" and form.is_valid():
        _key, created = create_key(request.user, form.cleaned_data["name"])
        form = KeyForm()
    rows = ApiKey.objects.filter(owner=request.user).order_by("-created_at")
    response = render(
        request,
        "evidence/keys.html",
        {"keys": rows, "form": form, "created": created},
        status=400 if form.errors else 200,
    )
    # The secret must not linger in any cache: this page is the only place it is ever shown.
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def revoke(request: HttpRequest, pk: int) -> HttpResponse:
    if revoke_key(request.user, pk):
        messages.success(request, "Key revoked: requests with it now get 401.")
    else:
        messages.error(request, "No such live key.")
    return redirect("keys")
