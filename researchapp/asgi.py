"""ASGI entry point (uvicorn): streaming responses such as the run event stream need ASGI."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

application = get_asgi_application()

if os.environ.get("EVIDENCE_SERVE_STATIC", "1") == "1":
    # Static files from the app itself, precompressed and cached (set 0 when a web server in front serves them).
    from evidence.static_serving import serve_static

    application = serve_static(application)

# The MCP server at /mcp (streamable HTTP), for assistants and agents that speak the Model Context Protocol.
from evidence.mcp import McpMount  # noqa: E402

application = McpMount(application)

# Refuse oversized bodies from their headers, before Django spools them to disk.
from django.conf import settings  # noqa: E402

from evidence.middleware import BodyLimitASGI  # noqa: E402

application = BodyLimitASGI(application, settings.EVIDENCE_MAX_UPLOAD_BYTES)
