"""Choose the answerability check's rule on replayed rows (bench/reader/replay.py read), and check it by paper.

    .venv/bin/python bench/reader/fit_answerable.py --rows artifacts/reader/rows.jsonl

The reader checks a withheld answer (anchored, not a yes/no) once more: "is every detail the question asks about
mentioned in the sentences?" (evidence/reader/reading.py, ANSWERABLE_CHECK). The run ends Not found when the check's
yes-minus-no margin is below a and the answer's P(right) below b. This script picks (a, b) on the pool's rows (part
dev2B is never read) for the most unanswerable questions caught with at most 2% of the answerable ones ended Not found,
and reports the same choice made leave one paper out: the rule chosen on the other papers, applied to each paper.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

MARGINS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
PROBABILITIES = (0.2, 0.3, 0.4, 0.5, 0.6)
MOST_FALSE = 0.02  # of the answerable questions ended Not found by the check


def counts(rows: list[dict], a: float, b: float) -> tuple[int, int]:
    """(unanswerable caught, answerable ended Not found) by the rule (margin < a and P(right) < b)."""
    hit = [r for r in rows if r["check"]["margin"] < a and r["p"] < b]
    return sum(not r["answerable"] for r in hit), sum(r["answerable"] for r in hit)


def choose(checked: list[dict], answerable: int) -> tuple[float, float]:
    def key(rule: tuple[float, float]) -> tuple:
        caught, false = counts(checked, *rule)
        return (false <= MOST_FALSE * answerable, caught - false, -sum(rule))

    return max(((a, b) for a in MARGINS for b in PROBABILITIES), key=key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, default=Path("artifacts/reader/rows.jsonl"))
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.rows.read_text().splitlines()]
    rows = [r for r in rows if r["part"] != "dev2B"]
    checked = [r for r in rows if r.get("check")]
    answerable = sum(r["answerable"] for r in rows)
    unanswered = [r for r in checked if not r["answerable"]]
    print(f"{len(rows)} pool questions ({answerable} answerable); {len(checked)} withheld answers checked, "
          f"{len(unanswered)} of them to unanswerable questions")  # fmt: skip
    rule = choose(checked, answerable)
    caught, false = counts(checked, *rule)
    print(f"chosen on the pool: margin < {rule[0]} and P(right) < {rule[1]}: caught {caught} of {len(unanswered)}, "
          f"{false} of {answerable} answerable ended Not found (in-sample)")  # fmt: skip
    caught = false = 0
    for paper in sorted({r["paper"] for r in rows}):
        others = [r for r in checked if r["paper"] != paper]
        rule = choose(others, sum(r["answerable"] for r in rows if r["paper"] != paper))
        got, wrong = counts([r for r in checked if r["paper"] == paper], *rule)
        caught, false = caught + got, false + wrong
    print(f"leave one paper out: caught {caught} of {len(unanswered)}, "
          f"{false} of {answerable} answerable ended Not found")  # fmt: skip


if __name__ == "__main__":
    main()
