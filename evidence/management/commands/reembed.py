"""`manage.py reembed [--collection NAME] [--all]`: embed collections again after the embedding model changed."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from ...ingest import reembed_collection, stale_collections
from ...models import Collection, Passage


class Command(BaseCommand):
    help = "Embed the passages of collections made with an older embedding model again (sentence vectors on use)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", action="append", default=[], help="name or id (repeatable)")
        parser.add_argument("--all", action="store_true", help="every collection, current ones too")

    def handle(self, *args: object, **options: object) -> None:
        names = list(options["collection"])  # type: ignore[call-overload]
        if names:
            chosen = [c for c in Collection.objects.order_by("pk") if c.name in names or str(c.pk) in names]
            if not chosen:
                raise CommandError(f"no collection named {', '.join(names)}: see the Collections page")
        elif options["all"]:
            chosen = list(Collection.objects.order_by("pk"))
        else:
            chosen = stale_collections()
        summary = []
        for collection in chosen:
            total = Passage.objects.filter(document__collection=collection).count()
            with tqdm(total=total, desc=collection.name[:30], unit="passage", file=sys.stderr) as bar:
                before = collection.embedding_model
                done = reembed_collection(collection, on_progress=bar.update)
            summary.append({"collection": collection.name, "from": before, "to": collection.embedding_model,
                            "passages": done})  # fmt: skip
        self.stdout.write(json.dumps({"reembedded": summary}))
