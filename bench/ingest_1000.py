"""Ingest of 1,000 full papers end to end (parse, store, embed passages, index), synthesized from the real papers'
paragraphs; wall time, passages/s and the per-file cost of the first and last 100 files. One JSON line per 25
files, then a summary line. Heavy (tens of minutes on 2 cores): `make bench-ingest-1000`, not part of `make bench`.

    .venv/bin/python bench/ingest_1000.py [--files 1000] [--words 7800] [--worker] [--keep]

Each paper is a markdown file: a title, then sections of paragraphs drawn at random from the 13 real papers
(/work/shared/data/papers) until it holds about --words words (7,800: ~40 passages and ~300 sentences; the 13 real
papers average 5,900 words and 29 passages). The files are uploaded as one job and ingested either in this process
as `manage.py ingest` does (embedding threads from EVIDENCE_EMBED_THREADS, default all cores), or with --worker by
the Celery worker as `make run` starts it (prefork, 2 processes of one embedding thread each), as a browser upload
is. index_ms (in-process only) is the time inside index_store.add_documents per file (merges run in a background
thread). file_ms is wall time per finished file: the first and last 100 show whether a file's cost grows.
`seconds` ends when the last file is indexed (the collection is searchable); then the worker prepares the papers'
sentence and paragraph vectors for reading in the background (--worker: `ready_s` is when the collection page says
"ready for questions", counted from the upload; the CLI path queues that work for a worker, as `manage.py ingest`
does). The bench uses a Redis database of its own and empties it after. The CLI path ingests --files-at-once files
at a time in threads (default: one per core, each embedding with its share of the cores, as `manage.py ingest`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "data" / "papers"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")


def emit(**row: object) -> None:
    print(json.dumps(row), flush=True)


def paragraph_pool() -> list[str]:
    """Return the paragraphs of every real paper the parsers read."""
    from evidence.ingest.parsers import parse_file

    pool: list[str] = []
    for path in sorted(PAPERS.rglob("*")):
        if not path.is_file() or path.name.endswith(".s2orc.json") or path.suffix == ".gz":
            continue
        try:
            documents = parse_file(path.name, path.read_bytes())
        except Exception as error:  # a format the parsers refuse: not part of the pool
            print(f"# skipped {path.name}: {error}", file=sys.stderr)
            continue
        for document in documents:
            for region in document.regions_of("paragraph"):
                text = " ".join(document.text[region.start : region.end].split())
                if len(text.split()) >= 20:
                    pool.append(text)
    return pool


def synthesize(n: int, words: int, seed: int = 5) -> list[tuple[str, bytes]]:
    pool = paragraph_pool()
    rng = np.random.default_rng(seed)
    files = []
    for i in range(n):
        sections, count, section = [], 0, []
        while count < words:
            paragraph = pool[int(rng.integers(len(pool)))]
            section.append(paragraph)
            count += len(paragraph.split())
            if len(section) >= int(rng.integers(3, 7)):
                sections.append(section)
                section = []
        if section:
            sections.append(section)
        body = "\n\n".join(f"## Section {s + 1}\n\n" + "\n\n".join(ps) for s, ps in enumerate(sections))
        files.append((f"paper-{i:04d}.md", f"# Synthetic paper {i}\n\n{body}\n".encode()))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--words", type=int, default=7800)
    parser.add_argument("--worker", action="store_true", help="ingest in the shipped Celery worker")
    parser.add_argument("--redis-db", type=int, default=9, help="the worker's own Redis database (--worker)")
    parser.add_argument("--keep", action="store_true", help="keep the collection (default: delete it after)")
    parser.add_argument(
        "--files-at-once",
        type=int,
        default=None,
        help="CLI path: files ingested at a time (default: one per core, as manage.py ingest)",
    )
    args = parser.parse_args()
    from shipped_worker import use_own_redis_db

    from evidence.encode.embedding import available_cores

    at_once = args.files_at_once or available_cores()
    if not args.worker:  # as manage.py ingest: the files at once share the cores as the worker's processes do
        os.environ.setdefault("EVIDENCE_WORKER_PROCESSES", str(at_once))

    use_own_redis_db(args.redis_db)  # preparation tasks the CLI path queues go there too, not to a dev worker

    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from evidence import tasks
    from evidence.ingest import jobs
    from evidence.ingest.prepare import readiness
    from evidence.models import Collection, IndexSegment, IngestFile, IngestJob, Passage, Region
    from evidence.retrieval import index_store

    files = synthesize(args.files, args.words)
    emit(case="synthesize", files=len(files), mb=round(sum(len(d) for _, d in files) / 2**20, 1))
    owner, _ = get_user_model().objects.get_or_create(username="bench")
    collection = Collection.objects.create(owner=owner, name=f"bench-ingest-1000-{os.getpid()}")
    index_ms: list[float] = []
    real_add = index_store.add_documents

    def timed_add(collection_id, document_ids):
        t = time.perf_counter()
        try:
            return real_add(collection_id, document_ids)
        finally:
            index_ms.append((time.perf_counter() - t) * 1000)

    index_store.add_documents = timed_add
    file_s: list[float] = []
    last = [time.perf_counter()]
    started = time.perf_counter()

    def on_file(record: IngestFile | None) -> None:
        now = time.perf_counter()
        file_s.append(now - last[0])
        last[0] = now
        if len(file_s) % 25 == 0:
            emit(case="progress", files=len(file_s), seconds=round(now - started, 1),
                 passages=Passage.objects.filter(document__collection=collection).count(),
                 last_25_file_ms=round(1000 * float(np.mean(file_s[-25:])), 1),
                 last_25_index_ms=round(float(np.mean(index_ms[-25:])), 1) if index_ms else None,
                 load_avg_1m=round(os.getloadavg()[0], 2))  # fmt: skip

    def in_worker(job: IngestJob) -> tuple[str, float, float]:
        """Queue the job as the upload page does, follow its files until the last one ends, then wait until the
        collection is ready for questions; return the worker's command and both times."""
        from shipped_worker import shipped_worker

        with shipped_worker("bench-ingest-1000") as command:
            tasks.enqueue_ingest(job.pk)
            ended = 0
            while True:
                job.refresh_from_db()
                for _ in range(job.files_done - ended):
                    on_file(None)
                ended = job.files_done
                if job.status in IngestJob.FINISHED:
                    break
                time.sleep(0.5)
            indexed_s = time.perf_counter() - started
            while True:
                ready, total = readiness(collection.pk)
                if ready >= total:
                    return " ".join(command[2:]), indexed_s, time.perf_counter() - started
                time.sleep(0.5)

    try:
        job = jobs.create_job(collection, files)
        upload_s = time.perf_counter() - started
        last[0] = time.perf_counter()
        worker, prepared = None, {}
        if args.worker:
            worker, ingest_s, ready_s = in_worker(job)
            prepared = {"ready_s": round(ready_s, 1), "ready_minutes": round(ready_s / 60, 1)}
        else:
            jobs.process_all(job, on_file=on_file, files_at_once=at_once)
            ingest_s = time.perf_counter() - started
        t = time.perf_counter()
        index_store.wait_for_merges()
        merge_wait_s = time.perf_counter() - t
        summary = jobs.job_summary(job)
        passages = Passage.objects.filter(document__collection=collection).count()
        sentences = Region.objects.filter(document__collection=collection, kind="sentence").count()
        emit(case="ingest_1000", files=len(files), documents=summary["documents"], failed=summary["failed"],
             passages=passages, sentences=sentences, seconds=round(ingest_s, 1), minutes=round(ingest_s / 60, 1),
             upload_s=round(upload_s, 1), passages_per_s=round(passages / ingest_s, 2),
             first_100_file_ms=round(1000 * float(np.mean(file_s[:100])), 1),
             last_100_file_ms=round(1000 * float(np.mean(file_s[-100:])), 1),
             first_100_index_ms=round(float(np.mean(index_ms[:100])), 1) if index_ms else None,
             last_100_index_ms=round(float(np.mean(index_ms[-100:])), 1) if index_ms else None,
             merge_wait_after_s=round(merge_wait_s, 1), **prepared,
             segments=IndexSegment.objects.filter(collection=collection).count(),
             embed_threads=os.environ.get("EVIDENCE_EMBED_THREADS", "default"), worker=worker,
             files_at_once=None if args.worker else at_once,
             peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
             load_avg_1m=round(os.getloadavg()[0], 2))  # fmt: skip
    finally:
        index_store.add_documents = real_add
        if not args.keep:
            collection.delete()
        from django.conf import settings

        from evidence.ratelimit import connect

        connect(settings.CELERY_BROKER_URL).flushdb()  # the bench's own database: tasks it left behind


if __name__ == "__main__":
    main()
