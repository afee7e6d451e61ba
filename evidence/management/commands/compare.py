"""`manage.py compare A B`: paired differences between two evaluations (ids or result folders)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...eval import compare_items, format_report
from ...models import Evaluation


def load(ref: str) -> tuple[str, str, dict[str, dict[str, Any]]]:
    """Return (label, benchmark, {qid: metrics}) for an evaluation id or a folder holding results.jsonl."""
    if ref.isdecimal():
        evaluation = Evaluation.objects.filter(pk=int(ref)).first()
        if evaluation is None:
            raise CommandError(f"No evaluation {ref}: list them in the admin or give a results folder.")
        items = {item.qid: item.metrics for item in evaluation.items.all()}
        return f"evaluation {ref} ({evaluation.benchmark}, {evaluation.system})", evaluation.benchmark, items
    path = Path(ref)
    results = path / "results.jsonl" if path.is_dir() else path
    if not results.exists():
        raise CommandError(f"{ref} is neither an evaluation id nor a folder with results.jsonl.")
    items = {}
    for line in results.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            items[row["qid"]] = row
    summary = (
        json.loads((results.parent / "summary.json").read_text()) if (results.parent / "summary.json").exists() else {}
    )
    return str(results.parent), summary.get("benchmark", ""), items


class Command(BaseCommand):
    help = "Compare two evaluations question by question: bootstrap intervals, sign tests, failure stages."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("a")
        parser.add_argument("b")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print only the JSON report")

    def handle(self, *args, **options) -> None:
        label_a, bench_a, items_a = load(options["a"])
        label_b, bench_b, items_b = load(options["b"])
        if bench_a and bench_b and bench_a != bench_b:
            raise CommandError(f"A is a {bench_a} evaluation and B a {bench_b} one: compare the same benchmark.")
        report = compare_items(bench_a or bench_b, items_a, items_b, seed=options["seed"])
        if not options["json"]:
            self.stdout.write(format_report(report, label_a, label_b))
        self.stdout.write(json.dumps(report))
