"""`manage.py mcp`: the MCP server over stdio, for a desktop assistant or agent that starts it as a subprocess.

The client's configuration sets EVIDENCE_API_KEY to one of your API keys; every tool acts for that key's owner.
Nothing but the protocol is written to stdout (logs go to stderr).
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...auth_keys import verify_key
from ...mcp import KEY_VARIABLE, build_server


class Command(BaseCommand):
    help = "Serve the MCP tools (search, read_document, ask, get_answer, get_span) over stdio."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="check the key and exit, without serving")

    def handle(self, *args, **options) -> None:
        raw = os.environ.get(KEY_VARIABLE, "").strip()
        key = verify_key(raw) if raw else None
        problem = (
            f"Set {KEY_VARIABLE} to one of your API keys (create one on the API keys page): "
            + ("the one given is unknown or revoked." if raw else "none is set.")
        )
        if options["check"]:
            if key is None:
                raise CommandError(problem)
            self.stderr.write(f"The key {key.prefix}… acts for {key.owner.get_username()}.")
            return
        if key is None:
            # Served all the same: each tool call answers with this sentence, which the assistant shows its user.
            self.stderr.write(problem)
        build_server().run("stdio")
