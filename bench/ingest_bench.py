"""Ingestion throughput: parse pages/s (PDFs, SciFact), and the full SciFact ingest (passages + sentences embedded/s).

Run: .venv/bin/python bench/ingest_bench.py [--quick]   (one JSON line per case; peak_mb is ru_maxrss)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")


def peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def emit(row: dict) -> None:
    print(json.dumps(row), flush=True)


def parse_cases() -> None:
    from evidence.ingest.parsers import parse_file

    for pdf in sorted((DATA / "papers" / "pdf").glob("*.pdf")):
        data = pdf.read_bytes()
        started = time.perf_counter()
        for _ in range(5):
            docs = parse_file(pdf.name, data)
        seconds = (time.perf_counter() - started) / 5
        pages = len(docs[0].pages)
        emit(
            {
                "case": "parse_pdf",
                "file": pdf.name,
                "pages": pages,
                "pages_per_s": round(pages / seconds, 1),
                "seconds": round(seconds, 4),
                "peak_mb": peak_mb(),
            }
        )
    corpus = DATA / "scifact" / "corpus.jsonl"
    started = time.perf_counter()
    docs = parse_file(corpus.name, corpus.read_bytes())
    seconds = time.perf_counter() - started
    emit(
        {
            "case": "parse_scifact",
            "documents": len(docs),
            "documents_per_s": round(len(docs) / seconds, 1),
            "seconds": round(seconds, 3),
            "peak_mb": peak_mb(),
        }
    )


def full_ingest(limit: int | None) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from evidence.ingest import jobs
    from evidence.models import Collection, Passage, Region

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    name = f"bench-ingest-{os.getpid()}"
    collection = Collection.objects.create(owner=owner, name=name)
    corpus = DATA / "scifact" / "corpus.jsonl"
    data = corpus.read_bytes()
    if limit:
        data = b"\n".join(data.splitlines()[:limit]) + b"\n"
    try:
        started = time.perf_counter()
        job = jobs.create_job(collection, [(corpus.name, data)])
        jobs.process_all(job)
        seconds = time.perf_counter() - started
        summary = jobs.job_summary(job)
        passages = Passage.objects.filter(document__collection=collection).count()
        sentences = Region.objects.filter(document__collection=collection, kind="sentence").count()
        # Sentence vectors are made when System 1 first reads them, not at ingest (evidence/ingest/store.py).
        embedded_sentences = Region.objects.filter(document__collection=collection, embedding__isnull=False).count()
        emit(
            {
                "case": "ingest_scifact",
                "documents": summary["documents"],
                "passages": passages,
                "sentences": sentences,
                "seconds": round(seconds, 1),
                "passages_per_s": round(passages / seconds, 2),
                "sentence_vectors_at_ingest": embedded_sentences,
                "units_embedded_per_s": round((passages + embedded_sentences) / seconds, 1),
                "peak_mb": peak_mb(),
                "load_avg_1m": round(os.getloadavg()[0], 2),
            }
        )
    finally:
        collection.delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="ingest only the first 300 abstracts")
    args = parser.parse_args()
    parse_cases()
    full_ingest(300 if args.quick else None)


if __name__ == "__main__":
    main()
