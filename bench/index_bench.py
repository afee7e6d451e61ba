"""Per-file BM25 index cost, before (every file reads and rewrites the whole index on disk) and after (a segment
appended in Postgres, tiered merges), interleaved file by file over the same SciFact abstracts.

    .venv/bin/python bench/index_bench.py [--files 1000] [--quick]

One JSON line per window of files (mean and p50 ms per file for both), then the cost of a cold load and of a
refresh by one version in another process (simulated by clearing the in-memory cache).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import django
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from evidence.models import Collection, Document, IndexSegment, Passage  # noqa: E402
from evidence.retrieval import index_store  # noqa: E402
from evidence.retrieval.analyzer import get_analyzer  # noqa: E402
from evidence.retrieval.bm25 import BM25Index  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"


def old_add(folder: Path, doc_tokens: list[str], passage_tokens: list[str], docid: str, params) -> None:
    """The former per-file step: load both levels whole, append, write both back (index_store before segments)."""
    levels = []
    for name, tokens, level_params in (("documents", doc_tokens, params[0]), ("passages", passage_tokens, params[1])):
        path = folder / name
        if path.exists():
            index = BM25Index.load(path, mmap=False)
            index.add([tokens], [docid])
        else:
            index = BM25Index.build([tokens], [docid], level_params)
        levels.append((path, index))
    for path, index in levels:
        index.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="300 files")
    args = parser.parse_args()
    n_files = 300 if args.quick else args.files
    owner, _ = get_user_model().objects.get_or_create(username="bench")
    collection = Collection.objects.create(owner=owner, name=f"bench-index-{os.getpid()}")
    folder = Path(tempfile.mkdtemp(prefix="old-index-"))
    analyze = get_analyzer(collection.analyzer)
    params = index_store.collection_params(collection)
    try:
        docs = []
        with CORPUS.open(encoding="utf-8") as handle:
            for line, _ in zip(handle, range(n_files), strict=False):
                raw = json.loads(line)
                text = " ".join(raw["abstract"])
                document = Document.objects.create(
                    collection=collection, docid=str(raw["doc_id"]), title=raw["title"],
                    source_name=f"{raw['doc_id']}.txt", source_format="text", sha256=f"{raw['doc_id']:064x}", text=text,
                )  # fmt: skip
                Passage.objects.create(document=document, ordinal=0, start=0, end=len(text))
                docs.append(document)
        old_ms, new_ms = [], []
        for document in docs:
            started = time.perf_counter()
            tokens = analyze(f"{document.docid}\n{document.text}")
            old_add(folder, tokens, analyze(f"{document.title}\n{document.text}"), document.docid, params)
            old_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            index_store.add_documents(collection.pk, [document.pk])
            new_ms.append((time.perf_counter() - started) * 1000)
        window = max(1, n_files // 10)
        for start in range(0, n_files, window):
            a, b = old_ms[start : start + window], new_ms[start : start + window]
            print(json.dumps({"case": "index_per_file", "files": f"{start + 1}-{start + len(a)}",
                              "before_mean_ms": round(float(np.mean(a)), 1),
                              "before_p50_ms": round(float(np.median(a)), 1),
                              "after_mean_ms": round(float(np.mean(b)), 1),
                              "after_p50_ms": round(float(np.median(b)), 1),
                              "after_max_ms": round(float(np.max(b)), 1)}), flush=True)  # fmt: skip
        index_store._cache.clear()
        started = time.perf_counter()
        index = index_store.load(collection.pk)
        cold = (time.perf_counter() - started) * 1000
        extra = Document.objects.create(
            collection=collection, docid="extra", title="Extra", source_name="x.txt", source_format="text",
            sha256="e" * 64, text="one more caffeine abstract",
        )
        Passage.objects.create(document=extra, ordinal=0, start=0, end=len(extra.text))
        index_store.add_documents(collection.pk, [extra.pk])
        started = time.perf_counter()
        index_store.load(collection.pk)
        refresh = (time.perf_counter() - started) * 1000
        print(json.dumps({"case": "index_load", "documents": len(index.documents.ids) + 1,
                          "segments": IndexSegment.objects.filter(collection=collection).count(),
                          "cold_load_ms": round(cold, 1), "refresh_one_version_ms": round(refresh, 1),
                          "before_total_s": round(sum(old_ms) / 1000, 2),
                          "after_total_s": round(sum(new_ms) / 1000, 2),
                          "load_avg_1m": round(os.getloadavg()[0], 2)}), flush=True)  # fmt: skip
    finally:
        collection.delete()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
