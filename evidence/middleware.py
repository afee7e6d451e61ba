"""Request middleware: Prometheus request metrics and a request id for the logs; an ASGI body-size guard."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse

from .logging import bind
from .metrics import HTTP_LATENCY, HTTP_REQUESTS


def route_of(request: HttpRequest) -> str:
    """Return the URL pattern that served the request (bounded label values), or 'unmatched'."""
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else "unmatched"


class MetricsMiddleware:
    """Count requests by method, route template and status, time them, and tag logs with a request id."""

    sync_capable = True
    async_capable = True  # async views (the event streams) stay on the event loop, no thread hop

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self._acall(request)
        started, request_id = time.perf_counter(), request_id_of(request)
        with bind(request_id=request_id):
            response = self.get_response(request)
        return record(request, response, started, request_id)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        started, request_id = time.perf_counter(), request_id_of(request)
        with bind(request_id=request_id):
            response = await self.get_response(request)
        return record(request, response, started, request_id)


def request_id_of(request: HttpRequest) -> str:
    return (
        "".join(c for c in request.headers.get("X-Request-ID", "")[:64] if c.isalnum() or c in "-_")
        or uuid.uuid4().hex[:16]
    )


def record(request: HttpRequest, response: HttpResponse, started: float, request_id: str) -> HttpResponse:
    method = request.method if request.method in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"} else "OTHER"
    route = route_of(request)
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
                    body = b'{"detail": "The request body is larger than the limit of %d bytes."}' % self.limit
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 413,
                            "headers": [
                                (b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close"),
                            ],
                        }
                    )
                    await send({"type": "http.response.body", "body": body})
                    return
        await self.app(scope, receive, send)
