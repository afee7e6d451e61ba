"""Request middleware: Prometheus request metrics and a request id for the logs; an ASGI body-size guard."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from .logging import bind
from .metrics import HTTP_LATENCY, HTTP_REQUESTS


def route_of(request: HttpRequest) -> str:
    """Return the URL pattern that served the request (bounded label values), or 'unmatched'."""
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else "unmatched"


class MetricsMiddleware:
    """Count requests by method, route template and status, time them, and tag logs with a request id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        request_id = request.headers.get("X-Request-ID", "")[:64] or uuid.uuid4().hex[:16]
        with bind(request_id=request_id):
            response = self.get_response(request)
        route = route_of(request)
        method = request.method if request.method in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"} else "OTHER"
        HTTP_REQUESTS.labels(method, route, str(response.status_code)).inc()
        # For a stream this is the time to the first byte, which is what a client waits for.
        HTTP_LATENCY.labels(method, route).observe(time.perf_counter() - started)
        response["X-Request-ID"] = request_id
        return response


class BodyLimitASGI:
    """Refuse an HTTP request whose Content-Length passes the limit before Django reads (and spools) its body.

    Django's ASGI handler reads the whole body before any view or middleware runs, so a size check in Django
    comes after the bytes are on disk; this wrapper answers 413 from the headers alone.
    """

    def __init__(self, app, limit_bytes: int) -> None:
        self.app = app
        self.limit = limit_bytes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            for name, value in scope.get("headers", []):
                if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                    body = (b'{"detail": "The request body is larger than the limit of %d bytes."}' % self.limit)
                    await send({"type": "http.response.start", "status": 413,
                                "headers": [(b"content-type", b"application/json"),
                                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
                    await send({"type": "http.response.body", "body": body})
                    return
        await self.app(scope, receive, send)
