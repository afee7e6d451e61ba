"""Paired comparison of two evaluations: per-metric differences with bootstrap intervals and sign tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .failures import STAGES
from .kinds import kind_of
from .stats import paired_bootstrap, sign_test

COMMON = ("latency_s", "calls", "cost_usd")


def compare_items(
    benchmark: str, a: Mapping[str, Mapping[str, Any]], b: Mapping[str, Mapping[str, Any]], seed: int = 0
) -> dict[str, Any]:
    """Pair per-question metrics by qid; return differences (B - A), intervals, p-values and failure stages."""
    qids = sorted(set(a) & set(b))
    rows = []
    kind = kind_of(benchmark)
    for metric in (*(kind.per_question if kind else ()), *COMMON):
        pairs = [(float(a[q][metric]), float(b[q][metric])) for q in qids if metric in a[q] and metric in b[q]]
        if not pairs:
            continue
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
        mean, lo, hi = paired_bootstrap(xs, ys, seed=seed)
        rows.append(
            {
                "metric": metric,
                "a": round(sum(xs) / len(xs), 4),
                "b": round(sum(ys) / len(ys), 4),
                "diff": round(mean, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "wins_b": sum(1 for x, y in pairs if y > x),
                "wins_a": sum(1 for x, y in pairs if x > y),
                "sign_p": round(sign_test(xs, ys), 6),
            }
        )
    return {
        "paired_questions": len(qids),
        "only_a": len(set(a) - set(b)),
        "only_b": len(set(b) - set(a)),
        "metrics": rows,
        "failure_stages": failure_table([a[q] for q in qids], [b[q] for q in qids]),
    }


def failure_table(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Count wrong answers per failure stage for A and B."""
    return [
        {
            "stage": stage,
            "a": sum(1 for m in a if m.get("failure_stage") == stage),
            "b": sum(1 for m in b if m.get("failure_stage") == stage),
        }
        for stage in STAGES
    ]


def format_report(report: Mapping[str, Any], label_a: str, label_b: str) -> str:
    """Render the comparison as a plain-text table."""
    lines = [f"A = {label_a}", f"B = {label_b}", f"paired questions: {report['paired_questions']}", ""]
    lines.append(f"{'metric':<14}{'A':>9}{'B':>9}{'B-A':>9}  {'95% CI':<20}{'B>A':>5}{'A>B':>5}{'sign p':>10}")
    for row in report["metrics"]:
        ci = f"[{row['ci95'][0]:+.4f}, {row['ci95'][1]:+.4f}]"
        lines.append(
            f"{row['metric']:<14}{row['a']:>9.4f}{row['b']:>9.4f}{row['diff']:>+9.4f}  {ci:<20}"
            f"{row['wins_b']:>5}{row['wins_a']:>5}{row['sign_p']:>10.4f}"
        )
    lines += ["", f"{'failure stage (wrong answers)':<34}{'A':>5}{'B':>5}"]
    for row in report["failure_stages"]:
        lines.append(f"{row['stage']:<34}{row['a']:>5}{row['b']:>5}")
    return "\n".join(lines)
