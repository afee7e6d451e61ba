"""`manage.py ask "QUESTION" --collection NAME [--system S] [--documents IDS]`: answer with citations."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...agent import SYSTEM_NAMES
from ...models import Collection
from ...run_state import StoredAnswer, user_config
from ...services import runs


class Command(BaseCommand):
    help = "Ask a question over a collection; prints the answer, its citations and the end status."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--collection", required=True)
        parser.add_argument("--owner", default=None)
        parser.add_argument("--system", default="dual", choices=SYSTEM_NAMES)
        parser.add_argument("--searcher", default="hybrid", choices=["bm25", "hybrid", "dense", "hybrid+dense"])
        parser.add_argument("--task", default="qa", choices=["qa", "ranking"])
        parser.add_argument(
            "--documents", default="", help="limit the run to these document ids (comma-separated): one paper, say"
        )
        parser.add_argument("--budget", type=float, default=None, help="time budget in seconds")
        parser.add_argument("--json", action="store_true", help="print the run as one JSON line")

    def handle(self, *args, **options) -> None:
        collections = Collection.objects.filter(name=options["collection"])
        if options["owner"]:
            collections = collections.filter(owner__username=options["owner"])
        collection = collections.order_by("pk").first()
        if collection is None:
            raise CommandError(f"No collection named {options['collection']!r}: ingest documents into it first.")
        owner = collection.owner if not options["owner"] else get_user_model().objects.get(username=options["owner"])
        try:
            scope = runs.check_request(collection, options["question"], options["documents"].split(","))
        except runs.RunRefused as error:
            raise CommandError(str(error)) from error
        run, _ = runs.create_run(
            owner, collection, options["question"], system=options["system"], task=options["task"],
            config=user_config(options["searcher"], scope), budget_s=options["budget"] or None, quota=False,
        )  # fmt: skip
        run = runs.run_here(run)
        citations = [
            {
                "marker": c.marker,
                "docid": c.span.document.docid,
                "start": c.span.start,
                "end": c.span.end,
                "page": c.span.page,
                "quote": c.span.quote,
            }
            for c in run.citations.select_related("span__document")
        ]
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "run": run.pk,
                        "status": run.status,
                        "outcome": StoredAnswer.of(run).outcome,
                        "answer": run.answer,
                        "citations": citations,
                        "error": run.error,
                    }
                )
            )
            return
        self.stdout.write(f"Run {run.pk} · {run.system} · status: {run.status}")
        if run.error:
            self.stdout.write(f"Error: {run.error}")
        stored = StoredAnswer.of(run)
        self.stdout.write(f"\nExplanation: {stored.explanation}")
        self.stdout.write(f"Exact answer: {stored.exact_answer}")
        self.stdout.write(f"Outcome: {stored.outcome}")
        self.stdout.write(f"Confidence: {stored.confidence or 0:.0%}\n")
        for citation in citations:
            page = f", page {citation['page']}" if citation["page"] else ""
            self.stdout.write(
                f"{citation['marker']} chars {citation['start']}-{citation['end']}{page}: “{citation['quote']}”"
            )
