"""`manage.py export_runs EVAL --format trec|browsecomp --out DIR`: run files outside evaluators read unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...eval.exports import browsecomp_filename, trec_run
from ...eval.run_export import browsecomp_for, run_ranking
from ...models import Evaluation


class Command(BaseCommand):
    help = "Export an evaluation's runs as a TREC run file or BrowseComp-Plus run JSON files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("evaluation", type=int)
        parser.add_argument("--format", required=True, choices=["trec", "browsecomp"])
        parser.add_argument("--out", type=Path, required=True)
        parser.add_argument("--tag", default=None, help="TREC run tag (default: evidence-SYSTEM)")
        parser.add_argument("--depth", type=int, default=1000)

    def handle(self, *args, **options) -> None:
        evaluation = Evaluation.objects.filter(pk=options["evaluation"]).first()
        if evaluation is None:
            raise CommandError(f"No evaluation {options['evaluation']}.")
        items = [item for item in evaluation.items.select_related("run").order_by("qid") if item.run]
        out: Path = options["out"]
        if options["format"] == "trec":
            tag = options["tag"] or f"evidence-{evaluation.system}"
            runs = {item.qid: run_ranking(item.run) for item in items}
            out.parent.mkdir(parents=True, exist_ok=True)
            target = out if out.suffix else out / f"{evaluation.benchmark}-{evaluation.system}.trec"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(trec_run(runs, tag, options["depth"]))
            self.stdout.write(f"wrote {target} ({len(runs)} queries)")
            return
        out.mkdir(parents=True, exist_ok=True)
        for item in items:
            (out / browsecomp_filename(item.qid)).write_text(json.dumps(browsecomp_for(item.run, item.qid), indent=2))
        self.stdout.write(f"wrote {len(items)} run files to {out}")
