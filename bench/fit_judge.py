"""Fit the local judge on ../shared/data and print a JSON report last (deterministic; needs no database).

Usage: .venv/bin/python bench/fit_judge.py [--out DIR] [--no-quality] [--only-scifact]
Fits on the fixed split (SciFact train claims sorted by id, first 80%; HotpotQA and QASPER heads on
their dev sets with grouped CV figures), writes the product heads, the cross-fitted fold heads
(paragraph_fold*, multihop_fold*, multihop_unit_fold*) and params/folds.json, then reports held-out
SciFact figures, the acceptance targets, calibration tables and ECE.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere without installing the project

from bench.fitting.quality import held_out_report  # noqa: E402
from bench.fitting.report import fit_all  # noqa: E402
from evidence.judge.heads import PARAMS_DIR  # noqa: E402


def main() -> None:
    """Fit every head, then print the fit report and the held-out figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(PARAMS_DIR), help="folder for the head parameter files")
    parser.add_argument("--no-quality", action="store_true", help="skip the held-out evaluation")
    parser.add_argument("--only-scifact", action="store_true", help="refit the document and sentence heads only")
    args = parser.parse_args()
    out = Path(args.out)
    report = {"fit": fit_all(out, only_scifact=args.only_scifact)}
    if not args.no_quality:
        report["held_out"] = held_out_report(out)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
