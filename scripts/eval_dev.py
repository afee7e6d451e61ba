"""`make eval`: run the development benchmarks on ../shared/data and write the Results table of docs/benchmarks.md.

Each evaluation is `manage.py evaluate ...`; its last stdout line is the summary JSON. SciFact uses the
held-out 20% of the train claims (sorted by id; the judge is fitted on the first 80%).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SCIFACT_HELD_OUT = ["--offset", "647"]  # round(809 * 0.8): the judge's fit split ends here
SYSTEMS = ["single_pass", "review_loop", "pi_serini", "dual"]
CASES = [
    *[("qasper", system, []) for system in SYSTEMS],
    *[("hotpotqa", system, []) for system in SYSTEMS],
    *[("scifact", system, SCIFACT_HELD_OUT) for system in ["bm25", "hybrid", "dense", "hybrid+dense"]],
    # System 1 re-ranks the best retrieval-only ranking (hybrid+dense) of each claim.
    ("scifact", "dual", [*SCIFACT_HELD_OUT, "--searcher", "hybrid+dense"]),
]


def evaluate(benchmark: str, system: str, extra: list[str]) -> dict:
    args = [PY, "manage.py", "evaluate", benchmark, "--system", system, "--fresh", *extra]
    print("$", " ".join(args[1:]), flush=True)
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{benchmark}/{system} failed:\n{result.stderr[-3000:]}")
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    summary["command"] = "manage.py " + " ".join(args[2:])
    print(json.dumps(summary), flush=True)
    return summary


def fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else ("" if value is None else str(value))


def table(rows: list[dict], columns: list[str]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(fmt(row.get(column)) for column in columns) + " |")
    return "\n".join(lines)


def render(results: list[dict], commit: str) -> str:
    by_bench: dict[str, list[dict]] = {}
    for row in results:
        by_bench.setdefault(row["benchmark"], []).append(row)
    common = ["p50_s", "p95_s", "calls_per_question", "cost_usd"]
    commits = ", ".join(f"{bench} at `{rows[0].get('commit') or commit}`" for bench, rows in by_bench.items())
    parts = [
        f"Latest `make eval` ({commits}; rendered {datetime.now(UTC):%Y-%m-%d %H:%M} UTC), offline planner, "
        "local judge, no API key. Each row is `manage.py evaluate ...` (the commands are listed under the tables).",
    ]
    if "qasper" in by_bench:
        parts += [
            "",
            "**QASPER dev sample (25 questions)**",
            "",
            table(by_bench["qasper"], ["system", "answer_f1", "evidence_f1", *common]),
        ]
    if "hotpotqa" in by_bench:
        parts += [
            "",
            "**HotpotQA dev distractor (30 questions)**",
            "",
            table(by_bench["hotpotqa"], ["system", "answer_em", "answer_f1", "sp_f1", *common]),
        ]
    if "scifact" in by_bench:
        rows = [
            {**row, "system": row["system"] if row["system"] != "single_pass" else row["searcher"]}
            for row in by_bench["scifact"]
        ]
        parts += [
            "",
            "**SciFact train claims, held-out 20% (162 claims, open retrieval over 5,183 abstracts)**",
            "",
            table(
                rows,
                [
                    "system",
                    "ndcg@10",
                    "recall@100",
                    "recall@1000",
                    "ranking_ndcg@20",
                    "f1@20",
                    "rationale_precision",
                    "rationale_recall",
                    "rationale_f1",
                    *common,
                ],
            ),
        ]
    parts += ["", "Commands:", "", "```", *[row["command"] for row in results], "```"]
    return "\n".join(parts)


def main() -> None:
    if sys.argv[1:] == ["--render"]:
        # Re-render docs/benchmarks.md from the latest results without running anything.
        results = json.loads((ROOT / "artifacts" / "eval" / "results.json").read_text())
        write(results, results[0].get("commit") or "")
        return
    only = set(sys.argv[1:])
    results = [evaluate(b, s, extra) for b, s, extra in CASES if not only or b in only]
    previous = ROOT / "artifacts" / "eval" / "results.json"
    if only and previous.exists():
        # A partial run keeps the other benchmarks' latest rows.
        kept = [row for row in json.loads(previous.read_text()) if row["benchmark"] not in only]
        results = kept + results
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    for row in results:
        row.setdefault("commit", commit)
    write(results, commit)


def write(results: list[dict], commit: str) -> None:
    """Write artifacts/eval/results.{md,json} and the Results section of docs/benchmarks.md."""
    text = render(results, commit)
    out = ROOT / "artifacts" / "eval"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.md").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=2))
    readme = ROOT / "docs" / "benchmarks.md"
    content = readme.read_text()
    block = f"<!-- results:start -->\n{text}\n<!-- results:end -->"
    if "<!-- results:start -->" in content:
        content = re.sub(r"<!-- results:start -->.*<!-- results:end -->", lambda _: block, content, flags=re.S)
    else:
        content = content.rstrip() + "\n\n" + block + "\n"
    readme.write_text(content)
    print(f"wrote {out / 'results.md'} and the Results section of docs/benchmarks.md")


if __name__ == "__main__":
    main()
