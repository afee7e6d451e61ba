"""Plain answers for bad input and for our own failures: a NUL byte is a 400, a crash a 500 without a traceback.

Django's debug page (and django-ninja's debug 500) put the traceback in the response; here the traceback goes
to the log and the client gets one sentence, whatever DJANGO_DEBUG says.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin

log = logging.getLogger(__name__)

NUL_SENTENCE = "The request contains a NUL byte (\\0 or %00), which no field accepts: remove it and send it again."
CRASH_SENTENCE = "Something went wrong on our side: the error is logged. Try again, or report it with the request id."
# Bodies we read whole to look for NUL; uploads (multipart) are checked field by field, file contents never.
TEXT_TYPES = ("application/json", "application/x-www-form-urlencoded", "text/plain")


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def has_nul(value: Any) -> bool:
    """Tell whether a decoded JSON value holds a NUL in any key or string."""
    if isinstance(value, str):
        return "\0" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_nul(v) for v in value)
    return False


def nul_in_request(request: HttpRequest) -> bool:
    """Tell whether the path, query string, form fields or a text body carry a NUL byte."""
    query = request.META.get("QUERY_STRING", "")
    if "\0" in request.path or "%00" in query or "\0" in query:
        return True
    content_type = request.content_type or ""
    if content_type == "multipart/form-data":
        length = request.META.get("CONTENT_LENGTH") or ""
        if not length.isdecimal() or int(length) > settings.EVIDENCE_MAX_UPLOAD_BYTES:
            return False  # the upload view refuses it from its Content-Length, before anything reads the body
        return any("\0" in key or any("\0" in v for v in values) for key, values in request.POST.lists())
    if content_type not in TEXT_TYPES:
        return False
    body = request.body
    if b"\0" in body:
        return True
    if content_type == "application/x-www-form-urlencoded":
        return b"%00" in body
    if content_type == "application/json" and b"\\u0000" in body:
        try:
            return has_nul(json.loads(body))
        except ValueError:
            return False  # not JSON at all: the view answers that
    return False


class NulGuardMiddleware(MiddlewareMixin):
    """Answer 400 with a plain sentence before any view sees a NUL byte (Postgres text cannot hold one)."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if not nul_in_request(request):
            return None
        if is_api(request):
            return JsonResponse({"detail": NUL_SENTENCE}, status=400)
        return HttpResponse(NUL_SENTENCE, status=400, content_type="text/plain; charset=utf-8")


class PlainErrorsMiddleware(MiddlewareMixin):
    """Turn an unexpected exception in a page view into a plain 500 page, even in debug; the log has the traceback."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404 | PermissionDenied | BadRequest | SuspiciousOperation):
            return None  # Django answers these with their own 4xx
        log.error("unhandled error in %s %s", request.method, request.path, exc_info=exception)
        return server_error_response(request)


def server_error_response(request: HttpRequest) -> HttpResponse:
    """Return the plain 500 answer: JSON for the API, the 500 page for pages, each naming the request id."""
    from .logging import CONTEXT

    request_id = CONTEXT.get({}).get("request_id", "")
    sentence = f"{CRASH_SENTENCE} (request id {request_id})" if request_id else CRASH_SENTENCE
    if is_api(request):
        return JsonResponse({"detail": sentence, "request_id": request_id}, status=500)
    try:
        body = render_to_string("500.html", {"sentence": sentence})
    except Exception:  # the page itself must never fail: fall back to the sentence
        log.exception("rendering 500.html failed")
        return HttpResponse(CRASH_SENTENCE, status=500, content_type="text/plain; charset=utf-8")
    return HttpResponse(body, status=500)
