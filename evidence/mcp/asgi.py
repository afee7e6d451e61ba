"""The MCP server mounted in the app at /mcp (streamable HTTP, stateless, JSON answers): the API key is checked and
rate limited here, before any tool runs, exactly as the API checks it; every other path goes on to Django.

The SDK's session manager must run in the event loop that serves its requests, so one server is built per loop
and started on its first request: no lifespan hook is needed, whatever runs the ASGI app (uvicorn in `make run`,
a test's server thread).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

MOUNT = "/mcp"
UNAUTHORIZED = (
    "Send one of your API keys as `Authorization: Bearer <key>` (create one on the API keys page, /keys/); "
    "the MCP server acts for the key's owner."
)


class McpMount:
    """Route /mcp to the MCP server (after the key check) and everything else to `app`."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._served: dict[asyncio.AbstractEventLoop, _Served] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == MOUNT or path.startswith(f"{MOUNT}/")):
            await self.app(scope, receive, send)
            return
        checked = await sync_to_async(check_key)(presented_key(scope))
        if isinstance(checked, Refusal):
            await checked.send(send)
            return
        if path == f"{MOUNT}/":
            scope = {**scope, "path": MOUNT, "raw_path": MOUNT.encode()}
        scope = {**scope, "state": {**scope.get("state", {}), "evidence_owner_id": checked}}
        served = await self._served_here()
        await served.app(scope, receive, send)

    async def _served_here(self) -> _Served:
        loop = asyncio.get_running_loop()
        served = self._served.get(loop)
        if served is None:
            served = self._served[loop] = _Served()
        await served.ready()
        return served


class _Served:
    """One MCP server and its streamable-HTTP app, with the session manager held open in its event loop."""

    def __init__(self) -> None:
        from mcp.server.transport_security import TransportSecuritySettings

        from .tools import build_server

        self.server = build_server()
        # A request is answered only with a valid API key, which a page another site rebinds to us cannot send.
        self.app = self.server.streamable_http_app(
            streamable_http_path=MOUNT,
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._started: asyncio.Future[None] | None = None
        self._holder: asyncio.Task[None] | None = None

    async def ready(self) -> None:
        if self._started is None:
            loop = asyncio.get_running_loop()
            self._started = loop.create_future()
            self._holder = loop.create_task(self._hold(), name="mcp-session-manager")
        await asyncio.shield(self._started)

    async def _hold(self) -> None:
        assert self._started is not None
        try:
            async with self.server.session_manager.run():
                self._started.set_result(None)
                await asyncio.get_running_loop().create_future()  # held until the loop ends
        except Exception as error:
            if not self._started.done():
                self._started.set_exception(error)
            raise


def presented_key(scope: dict) -> str:
    """The key sent as `Authorization: Bearer <key>` or `X-API-Key: <key>` ('' when none)."""
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    scheme, _, value = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return headers.get(b"x-api-key", b"").decode("latin-1").strip()


class Refusal:
    def __init__(self, status: int, detail: str, headers: list[tuple[bytes, bytes]]) -> None:
        self.status, self.detail, self.headers = status, detail, headers

    async def send(self, send: Any) -> None:
        body = json.dumps({"detail": self.detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": self.status, "headers": headers + self.headers})
        await send({"type": "http.response.body", "body": body})


def check_key(raw: str) -> int | Refusal:
    """The owner id of a live key within its rate, or the refusal to send (401 unknown, 429 over the rate)."""
    from ..auth_keys import verify_key
    from ..ratelimit import bucket_name, take

    close_old_connections()
    try:
        key = verify_key(raw) if raw else None
        if key is None:
            detail = UNAUTHORIZED if not raw else "The API key is unknown or revoked: create a new one on /keys/."
            return Refusal(401, detail, [(b"www-authenticate", b'Bearer realm="evidence-desk"')])
        decision = take(bucket_name("key", key.key_hash[:24]), key.rate_per_minute)
        if not decision.allowed:
            detail = f"Rate limit reached: retry in {decision.retry_after_s} s."
            return Refusal(429, detail, [(b"retry-after", str(decision.retry_after_s).encode())])
        return key.owner_id
    finally:
        close_old_connections()
