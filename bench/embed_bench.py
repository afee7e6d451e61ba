"""Measure MiniLM int8 embedding throughput on SciFact passages and sentences.

Usage: .venv/bin/python bench/embed_bench.py [--threads 2] [--passages 500] [--sentences 2000]
Prints one JSON line per case (load, passages, sentences), with an extrapolated time for the full corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere without installing the project

from evidence.ingest.embedding import Embedder  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"


def peak_rss_mb() -> float:
    """Return this process's peak resident set size in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_corpus(path: Path) -> tuple[list[str], list[str]]:
    """Return (passages, sentences): passage = title + abstract, sentences = abstract sentences."""
    passages, sentences = [], []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            passages.append(" ".join([doc["title"], *doc["abstract"]]))
            sentences.extend(doc["abstract"])
    return passages, sentences


def time_case(embedder: Embedder, name: str, sample: list[str], total: int) -> dict[str, object]:
    """Embed `sample` once after a warm-up batch and return throughput figures."""
    embedder.embed(sample[:8])
    start, cpu_start = time.perf_counter(), time.process_time()
    embedder.embed(sample)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    rate = len(sample) / seconds
    return {
        "case": name,
        "n": len(sample),
        "seconds": round(seconds, 2),
        # CPU time and load show whether other processes shared the cores during the run.
        "cpu_s": round(cpu_seconds, 2),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "per_s": round(rate, 1),
        "corpus_total": total,
        "corpus_est_s": round(total / rate, 1),
        "threads": embedder.threads,
        "batch_size": embedder.batch_size,
        "max_batch_tokens": embedder.max_batch_tokens,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }


def main() -> None:
    """Run the benchmark and print one JSON line per case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--passages", type=int, default=500)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    passages, sentences = load_corpus(args.corpus)
    rng = random.Random(0)
    start = time.perf_counter()
    embedder = Embedder(threads=args.threads, batch_size=args.batch_size)
    load_s = time.perf_counter() - start
    print(json.dumps({"case": "load", "seconds": round(load_s, 2), "peak_rss_mb": round(peak_rss_mb(), 1)}))

    cases = [
        ("passages", rng.sample(passages, min(args.passages, len(passages))), len(passages)),
        ("sentences", rng.sample(sentences, min(args.sentences, len(sentences))), len(sentences)),
    ]
    for name, sample, total in cases:
        print(json.dumps(time_case(embedder, name, sample, total)), flush=True)


if __name__ == "__main__":
    main()
