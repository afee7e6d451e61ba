"""`manage.py export_runs EVAL --format trec|qasper|browsecomp --out PATH`: files outside evaluators read unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...eval import (
    browsecomp_filename,
    browsecomp_for,
    export_ids,
    qasper_predictions,
    qasper_row,
    run_ranking,
    trec_run,
    trec_scores_replaced,
    trec_scores_tsv,
)
from ...models import Evaluation


class Command(BaseCommand):
    help = (
        "Export an evaluation's runs: a TREC run file (our ranking exactly), QASPER predictions JSONL "
        "(the official evaluator's input) or BrowseComp-Plus run JSON files."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("evaluation", type=int)
        parser.add_argument("--format", required=True, choices=["trec", "qasper", "browsecomp"])
        parser.add_argument("--out", type=Path, required=True, help="a file (trec, qasper) or a folder")
        parser.add_argument("--tag", default=None, help="TREC run tag (default: evidence-SYSTEM)")
        parser.add_argument("--depth", type=int, default=1000)

    def handle(self, *args, **options) -> None:
        evaluation = Evaluation.objects.filter(pk=options["evaluation"]).first()
        if evaluation is None:
            raise CommandError(f"No evaluation {options['evaluation']}.")
        items = [item for item in evaluation.items.select_related("run").order_by("id") if item.run]
        out: Path = options["out"]
        fmt = options["format"]
        if fmt == "browsecomp":
            self._browsecomp(evaluation, items, out)
            return
        suffix = ".trec" if fmt == "trec" else ".jsonl"
        target = out if out.suffix else out / f"{evaluation.benchmark}-{evaluation.system}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "qasper":
            if evaluation.benchmark != "qasper":
                raise CommandError(f"Evaluation {evaluation.pk} is {evaluation.benchmark}, not qasper.")
            text = qasper_predictions([qasper_row(item.run, item.qid) for item in items])
            target.write_text(text, encoding="utf-8")
            self.stdout.write(f"wrote {target} ({text.count(chr(10))} predictions)")
            return
        tag = options["tag"] or f"evidence-{evaluation.system}"
        runs = {item.qid: run_ranking(item.run) for item in items}
        target.write_text(trec_run(runs, tag, options["depth"]))
        replaced = trec_scores_replaced(runs, options["depth"])
        note = ""
        if replaced:
            scores = target.with_name(target.name + ".scores.tsv")
            scores.write_text(trec_scores_tsv(runs, options["depth"]))
            note = f"; {len(replaced)} queries had tied scores: ranks written as scores, ours in {scores}"
        self.stdout.write(f"wrote {target} ({len(runs)} queries{note})")

    def _browsecomp(self, evaluation: Evaluation, items: list, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        ids = export_ids(evaluation.collection_id) if evaluation.collection_id else {}
        for item in items:
            run = browsecomp_for(item.run, item.qid, ids)
            (out / browsecomp_filename(item.qid)).write_text(json.dumps(run, indent=2, ensure_ascii=False))
        renumbered = {docid: number for docid, number in ids.items() if docid != number}
        if renumbered:
            # The evaluator reads docids as numbers: this maps them back (and converts qrels to match).
            ordered = sorted(renumbered.items(), key=lambda row: int(row[1]))
            (out / "docids.tsv").write_text("number\tdocid\n" + "".join(f"{n}\t{d}\n" for d, n in ordered))
        note = " (docids as numbers: docids.tsv)" if renumbered else ""
        self.stdout.write(f"wrote {len(items)} run files to {out}{note}")
