"""`manage.py fit_judge [--out DIR] [--no-quality]`: fit the local judge, print a JSON report last.

Fits on the fixed split (SciFact train claims sorted by id, first 80%; HotpotQA and QASPER heads on
their dev sets with grouped CV figures), writes the product heads, the cross-fitted fold heads
(paragraph_fold*, multihop_fold*, multihop_unit_fold*) and params/folds.json, then reports held-out
SciFact figures, the acceptance targets, calibration tables and ECE. Deterministic; needs no database.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from ...judge.heads import PARAMS_DIR
from ...judge.quality import held_out_report
from ...judge.report import fit_all


class Command(BaseCommand):
    help = "Fit the local System 1 judge on ../shared/data and report held-out figures as JSON."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(PARAMS_DIR), help="folder for the head parameter files")
        parser.add_argument("--no-quality", action="store_true", help="skip the held-out evaluation")

    def handle(self, *args: object, **options: object) -> None:
        out = Path(str(options["out"]))
        report = {"fit": fit_all(out)}
        if not options["no_quality"]:
            report["held_out"] = held_out_report(out)
        self.stdout.write(json.dumps(report))
