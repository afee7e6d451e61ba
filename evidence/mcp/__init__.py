"""The MCP wing: the Model Context Protocol server's tools (`tools.py`) and its mount at /mcp in the ASGI app
(`asgi.py`, which checks the API key before any tool runs).

The tools load the MCP SDK's server, so they are loaded when first asked for (the mount builds its server on its
first request, `manage.py mcp` when it starts), not when the ASGI app loads.
"""

from __future__ import annotations

from typing import Any

from .asgi import McpMount

__all__ = ["KEY_VARIABLE", "McpMount", "build_server"]


def __getattr__(name: str) -> Any:
    if name in ("KEY_VARIABLE", "build_server"):
        from . import tools

        return getattr(tools, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
