"""`make bench` and `make bench-NAME`: run benchmark groups; each script prints one JSON line per case.

    .venv/bin/python bench/run_all.py [GROUP ...] [--quick]     (no group: all but ingest-1000, in the order below)

Each group finishes in a few minutes on 2 cores; its lines are kept in artifacts/bench/<script>[-<option>...].jsonl.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# group -> [(script, extra arguments, accepts --quick)]
GROUPS: dict[str, list[tuple[str, list[str], bool]]] = {
    "retrieval": [("bench/retrieval_bench.py", ["--quick"], False)],  # SciFact, Anserini parity, 20K synthetic
    "retrieval-100k": [("bench/retrieval_bench.py", [], False)],  # 100K synthetic with rank_bm25: over 10 minutes
    "retrieval-1m": [("bench/retrieval_1m.py", [], True)],
    "embed": [("bench/embed_bench.py", [], False), ("bench/embed_breakdown.py", [], False)],
    "embed-quality": [("bench/embed_quality.py", ["--claims", "150", "--distractors", "600"], False)],
    "index": [("bench/index_bench.py", [], True)],
    "ingest": [("bench/ingest_bench.py", ["--quick"], False)],
    "judge": [("bench/judge_bench.py", [], False)],
    # PDF titles against the real ones, and whole bylines (title, authors, year), 22 papers
    "titles": [("bench/pdf_titles.py", [], False), ("bench/pdf_bylines.py", [], False)],
    "load": [("bench/load_test.py", [], False)],
    # The first questions on 20 freshly uploaded real papers, cold and prepared for reading (about 10 minutes).
    "first-question": [("bench/first_question.py", [], False)],
    # The reader model on dev2's questions through the product path, and on the gold sentence among others (minutes).
    "reader": [("bench/reader_bench.py", [], False)],
    # The reading walk of one dual run: rooms (modules) and returns to rooms left before (issue 28's measure).
    "walk": [("bench/context_walk.py", [], False)],
    # Tens of minutes, only when named (make bench-ingest-1000): through the shipped worker, as a browser upload,
    # then in the CLI path, as `manage.py ingest`.
    "ingest-1000": [("bench/ingest_1000.py", ["--worker"], False), ("bench/ingest_1000.py", [], False)],
}
EXPLICIT_ONLY = {"ingest-1000"}


def anserini_peer() -> None:
    """Build the Anserini peer's own venv and let it write its SciFact rankings for the parity case."""
    target = ROOT / "artifacts" / "anserini_scifact.json"
    if target.exists():
        return
    setup = subprocess.run(["bash", "bench/setup_anserini_peer.sh"], cwd=ROOT, capture_output=True, text=True)
    if setup.returncode != 0:
        print(f"# anserini peer unavailable (setup failed): {setup.stderr[-500:]}", flush=True)
        return
    peer = subprocess.run(
        [str(ROOT / ".bench-venv" / "bin" / "python"), "bench/anserini_peer.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if peer.returncode != 0:
        print(f"# anserini peer failed: {peer.stderr[-500:]}", flush=True)


def main() -> None:
    quick = "--quick" in sys.argv
    names = [arg for arg in sys.argv[1:] if not arg.startswith("--")] or [g for g in GROUPS if g not in EXPLICIT_ONLY]
    unknown = [name for name in names if name not in GROUPS]
    if unknown:
        sys.exit(f"unknown benchmark group {', '.join(unknown)}: choose from {', '.join(GROUPS)}")
    out = ROOT / "artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    if {"retrieval", "retrieval-100k"} & set(names):
        anserini_peer()
    for script, extra, takes_quick in [entry for name in names for entry in GROUPS[name]]:
        path = ROOT / script
        if not path.exists():
            print(f"# skipped {script} (not present)", flush=True)
            continue
        args = [sys.executable, str(path), *extra, *(["--quick"] if quick and takes_quick else [])]
        print(f"# {script}", flush=True)
        started = time.perf_counter()
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        suffix = "".join(f"-{arg.lstrip('-')}" for arg in extra if arg.startswith("--"))  # one file per variant
        (out / f"{path.stem}{suffix}.jsonl").write_text(result.stdout)
        print(result.stdout, end="", flush=True)
        if result.returncode != 0:
            failed.append(script)
            print(result.stderr[-2000:], file=sys.stderr)
        print(f"# {script} took {time.perf_counter() - started:.0f} s", flush=True)
    if failed:
        sys.exit(f"benchmarks failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
