"""`make bench`: run every benchmark script in turn; each prints one JSON line per case (collected in artifacts/)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (script, accepts --quick)
SCRIPTS = [
    ("bench/retrieval_bench.py", True),
    ("bench/embed_bench.py", False),
    ("bench/ingest_bench.py", True),
    ("bench/judge_bench.py", False),
    ("bench/load_test.py", False),
]


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
    out = ROOT / "artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    failed = []
    anserini_peer()
    for script, takes_quick in SCRIPTS:
        path = ROOT / script
        if not path.exists():
            print(f"# skipped {script} (not present)", flush=True)
            continue
        args = [sys.executable, str(path), *(["--quick"] if quick and takes_quick else [])]
        print(f"# {script}", flush=True)
        started = time.perf_counter()
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        (out / f"{path.stem}.jsonl").write_text(result.stdout)
        print(result.stdout, end="", flush=True)
        if result.returncode != 0:
            failed.append(script)
            print(result.stderr[-2000:], file=sys.stderr)
        print(f"# {script} took {time.perf_counter() - started:.0f} s", flush=True)
    if failed:
        sys.exit(f"benchmarks failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
