"""The one NinjaAPI instance: the JSON API under /api/ (docs at /api/docs, schema at /api/openapi.json)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.contrib.auth.views import redirect_to_login
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, URLResolver
from ninja import NinjaAPI
from ninja.errors import AuthenticationError

from evidence.api import router
from evidence.auth_keys import API_AUTH, RateLimited, presented_key, verify_key
from evidence.errors import server_error_response
from evidence.piserini import manage_router as piserini_manage_router
from evidence.piserini import router as piserini_router
from evidence.services.quotas import QuotaExceeded

log = logging.getLogger(__name__)


def docs_access(view: Callable) -> Callable:
    """Let the docs and schema through for a session or a valid key; else 401 (schema) or the login page."""

    def wrapped(request: HttpRequest, *args, **kwargs):
        raw = presented_key(request)
        if request.user.is_authenticated or (raw and verify_key(raw)):
            return view(request, *args, **kwargs)
        if request.path.endswith(".json"):
            return JsonResponse({"detail": "Authentication required: log in or send an API key."}, status=401)
        return redirect_to_login(request.get_full_path())

    return wrapped


class EvidenceAPI(NinjaAPI):
    """NinjaAPI whose views answer unauthenticated calls themselves (401 JSON), not with a login redirect."""

    def _get_urls(self) -> list[URLPattern | URLResolver]:
        urls = super()._get_urls()
        for pattern in urls:
            if isinstance(pattern, URLPattern):
                # LoginRequiredMiddleware would redirect API clients to the login page; the API's own auth decides.
                pattern.callback.login_required = False
        return urls


api = EvidenceAPI(
    title="Evidence desk API",
    version="1",
    description=(
        "Collections, uploads, documents, research runs (with their event stream), answers with cited spans, "
        "evaluations and run comparison. Authenticate with an API key (`Authorization: Bearer <key>` or "
        "`X-API-Key`; create keys at /keys/) or a browser session (unsafe methods need `X-CSRFToken`). "
        "Every object belongs to its owner: another user's object is a 404. Keys are rate limited (429 with "
        "Retry-After); users have quotas on active runs and on upload size (413)."
    ),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
    docs_decorator=docs_access,
    auth=API_AUTH,
)
api.add_router("/", router)
api.add_router("/piserini/", piserini_router)
api.add_router("/", piserini_manage_router)


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = api.create_response(
        request,
        {"detail": "Authentication required: send an API key as 'Authorization: Bearer <key>' or log in."},
        status=401,
    )
    response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


@api.exception_handler(RateLimited)
def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    response = api.create_response(request, {"detail": str(exc)}, status=429)
    response["Retry-After"] = str(exc.retry_after_s)
    return response


@api.exception_handler(QuotaExceeded)
def over_quota(request: HttpRequest, exc: QuotaExceeded) -> HttpResponse:
    return api.create_response(request, {"detail": str(exc)}, status=exc.status)


@api.exception_handler(Exception)
def unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    # ninja's default handler answers with the traceback in debug: log it, answer one sentence.
    log.error("unhandled error in %s %s", request.method, request.path, exc_info=exc)
    return server_error_response(request)


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def database_down(request: HttpRequest, exc: DatabaseError) -> HttpResponse:
    # A restarting Postgres is reported as a retryable 503, not a crash.
    log.warning("database unavailable: %s", exc)
    response = api.create_response(request, {"detail": "The database is unavailable: try again shortly."}, status=503)
    response["Retry-After"] = "5"
    return response
