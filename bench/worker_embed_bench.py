"""Embedding throughput of an ingest in the Celery worker as `make run` starts it (scripts/run.py worker_command:
prefork, 2 processes) against the same files ingested by the CLI path in this process, interleaved; one JSON line.

    .venv/bin/python bench/worker_embed_bench.py [--files 6] [--words 3000] [--rounds 2] [--redis-db 9]

The worker and this process use a Redis database of their own (--redis-db), so no other worker takes the tasks.
Files are synthesized from the real papers' paragraphs (bench/ingest_1000.py); each case ingests them into a fresh
collection; passages/s is passages stored over wall time, from the job's creation until its last file ended.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=6)
    parser.add_argument("--words", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--redis-db", type=int, default=9)
    args = parser.parse_args()
    from shipped_worker import shipped_worker, use_own_redis_db

    use_own_redis_db(args.redis_db)

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from ingest_1000 import synthesize

    from evidence import tasks
    from evidence.ingest import jobs
    from evidence.models import Collection, IngestJob, Passage

    files = synthesize(args.files * (2 * args.rounds + 1), args.words, seed=17)
    batches = [files[i * args.files : (i + 1) * args.files] for i in range(2 * args.rounds + 1)]
    owner, _ = get_user_model().objects.get_or_create(username="bench")
    made: list[Collection] = []

    def ingest(batch, where: str) -> tuple[float, int]:
        collection = Collection.objects.create(owner=owner, name=f"bench-embed-{where}-{os.getpid()}-{len(made)}")
        made.append(collection)
        started = time.perf_counter()
        job = jobs.create_job(collection, batch)
        if where == "cli":
            jobs.process_all(job)
        else:
            tasks.enqueue_ingest(job.pk)
            while IngestJob.objects.get(pk=job.pk).status not in IngestJob.FINISHED:
                time.sleep(0.2)
        seconds = time.perf_counter() - started
        return seconds, Passage.objects.filter(document__collection=collection).count()

    try:
        with shipped_worker("bench-embed") as command:
            ingest(batches[0][:2], "worker")  # the pool processes load the model
            ingest(batches[0][2:4], "cli")
            totals = {"cli": [0.0, 0], "worker": [0.0, 0]}
            loads = []
            for r in range(args.rounds):
                for k, where in enumerate(("cli", "worker")):
                    seconds, passages = ingest(batches[1 + 2 * r + k], where)
                    totals[where][0] += seconds
                    totals[where][1] += passages
                    loads.append(os.getloadavg()[0])
            rates = {where: passages / seconds for where, (seconds, passages) in totals.items()}
            print(json.dumps({"case": "embed_in_worker_vs_cli", "files_per_case": args.files, "rounds": args.rounds,
                              "cli_passages_per_s": round(rates["cli"], 2),
                              "worker_passages_per_s": round(rates["worker"], 2),
                              "worker_over_cli": round(rates["worker"] / rates["cli"], 2),
                              "passages": {w: t[1] for w, t in totals.items()},
                              "worker": " ".join(command[2:]),
                              "load_avg_1m_mean": round(sum(loads) / len(loads), 2)}), flush=True)  # fmt: skip
    finally:
        for collection in made:
            collection.delete()


if __name__ == "__main__":
    main()
