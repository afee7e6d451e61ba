"""The MCP wing: the Model Context Protocol server's tools (`tools.py`) and its mount at /mcp in the ASGI app
(`asgi.py`, which checks the API key before any tool runs).

The tools load the MCP SDK's server, so they are loaded when first asked for (the mount builds its server on its
first request, `manage.py mcp` when it starts), not when the ASGI app loads.
"""

from .. import face

# The room's face: the names other rooms import from it, each with the module that holds it.
FACE = {
    "KEY_VARIABLE": "tools",
    "McpMount": "asgi",
    "build_server": "tools",
}
__getattr__ = face(__name__, FACE)
