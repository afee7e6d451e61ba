"""The first questions on a freshly uploaded collection, cold and prepared: `make bench-first-question`.

    .venv/bin/python bench/first_question.py [--questions N] [--file dev2.json]

Ingests the 20 real PDFs of ../shared/data/realqa/papers into two new collections as an upload does (passages
embedded; sentences not), then asks realqa's questions over the whole collection with the dual system, through
the same code path as `manage.py evaluate papers`:
- cold: as before background preparation existed (the first questions embed the sentences they read);
- prepared: after the collection is prepared for reading (timed), as the worker does after an upload.
Prints one JSON line per variant (ingest and preparation seconds, question p50/p95 seconds, evidence hit and strict
answer accuracy), then one with both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
# The bench prepares its collection itself (or measures it cold): no preparation queued for a running worker,
# which would prepare the cold collection under the measurement and leave tasks on the developer's queue.
os.environ["EVIDENCE_PREPARE_IN_BACKGROUND"] = "false"
DATA = ROOT.parent / "shared" / "data" / "realqa"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=40, help="how many questions to ask of each collection")
    parser.add_argument("--file", default="dev2.json", help="realqa question file (dev.json or dev2.json)")
    parser.add_argument("--variant", choices=["cold", "prepared"], help="one variant, in this process")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(measure(args.variant, args.questions, args.file)), flush=True)
        return
    # Each variant in a process of its own: the embedder's in-process cache must not carry vectors across.
    lines = {}
    for variant in ("cold", "prepared"):
        command = [
            sys.executable,
            __file__,
            "--variant",
            variant,
            "--questions",
            str(args.questions),
            "--file",
            args.file,
        ]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        lines[variant] = json.loads(result.stdout.strip().splitlines()[-1])
        print(json.dumps(lines[variant]), flush=True)
    cold, warm = lines["cold"], lines["prepared"]
    print(json.dumps({
        "case": "first_question_cold_vs_prepared",
        "p50_s": [cold["question_p50_s"], warm["question_p50_s"]],
        "p95_s": [cold["question_p95_s"], warm["question_p95_s"]],
        "preparation_s": warm["preparation_s"],
        "targets": {"p50_s": 1.5, "p95_s": 3.0},
    }))  # fmt: skip


def measure(variant: str, limit: int, question_file: str) -> dict:
    """Ingest the papers into a new collection, prepare it or not, ask the questions; return the figures."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from evidence.eval.papers_bench import Papers
    from evidence.ingest import jobs
    from evidence.models import Collection
    from evidence.services.evaluation_runner import evaluate

    owner, _ = get_user_model().objects.get_or_create(username="bench-first-question")
    papers = sorted((DATA / "papers").glob("*.pdf"))
    name = f"first-question-{variant}-{time.strftime('%Y%m%d-%H%M%S')}"
    collection = Collection.objects.create(owner=owner, name=name)
    started = time.perf_counter()
    job = jobs.create_job(collection, [(path.name, path.read_bytes()) for path in papers])
    jobs.process_all(job)
    ingest_s = time.perf_counter() - started
    summary = evaluate(
        Papers(DATA / question_file, name), owner, "dual", {"searcher": "hybrid", "quiet_events": True},
        limit=limit, fresh=True, prepare=variant == "prepared",
    )  # fmt: skip
    return {
        "case": f"first_question_{variant}",
        "papers": len(papers),
        "questions": summary["questions"],
        "ingest_s": round(ingest_s, 1),
        "preparation_s": summary["preparation_s"],
        "prepared_regions": summary["prepared_regions"],
        "question_p50_s": summary["p50_s"],
        "question_p95_s": summary["p95_s"],
        "questions_wall_s": summary["questions_wall_s"],
        "evidence_hit": summary.get("evidence_hit"),
        "answer_strict": summary.get("answer_strict"),
        "evaluation": summary["evaluation"],
    }


if __name__ == "__main__":
    main()
