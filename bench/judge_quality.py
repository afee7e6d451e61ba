"""Acceptance figures of the local judge, on data it was not fitted on; one JSON line per group.

Usage: .venv/bin/python bench/judge_quality.py [--fit] [--params DIR] [--no-cosine]
  --fit refits every head first (as bench/fit_judge.py does). SciFact figures are on the held-out
  last 20% of train claims; HotpotQA figures are CV of the fold heads (5 folds of questions), QASPER
  figures CV grouped by question and by paper (the fold heads). The "targets" line sums them up.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere without installing the project

from bench.fitting.quality import held_out_report  # noqa: E402
from bench.fitting.report import fit_all  # noqa: E402
from evidence.judge.heads import PARAMS_DIR, Head  # noqa: E402


def main() -> None:
    """Print the fit report (with --fit) and the held-out figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fit", action="store_true", help="refit the heads before evaluating")
    parser.add_argument("--params", default=str(PARAMS_DIR))
    parser.add_argument("--no-cosine", action="store_true", help="skip the cosine-threshold baseline (slow)")
    args = parser.parse_args()
    params = Path(args.params)
    start = time.perf_counter()
    if args.fit:
        print(json.dumps({"case": "fit", **fit_all(params), "seconds": round(time.perf_counter() - start, 1)}))
    held = held_out_report(params, cosine=not args.no_cosine)
    calibration = held.pop("calibration")
    print(json.dumps({"case": "targets", **held.pop("targets")}))
    print(json.dumps({"case": "scifact_held_out", **held}))
    print(json.dumps({"case": "scifact_calibration_held_out", **calibration}))
    for name, key in (("multihop", "hotpotqa_cv"), ("paragraph", "qasper_cv")):
        cv = Head.load(name, params).meta.get("cv", {})
        print(json.dumps({"case": key, **{k: v for k, v in cv.items() if k != "reliability_cv"}}))
    print(json.dumps({"case": "done", "seconds": round(time.perf_counter() - start, 1)}))


if __name__ == "__main__":
    main()
