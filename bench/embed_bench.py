"""Embedding throughput, the model before and after, measured interleaved.

Usage: .venv/bin/python bench/embed_bench.py [--passages 160] [--sentences 800] [--rounds 2] [--before fdq8r1]
Before is a model that shipped before the current one: `fdq8r1` (the default: the same model with graph
revision 1, whose SkipLayerNormalization kernel was slow, run as it was, the optimizer that fuses it on), `dq8pc`
(the unfused exported graph, dynamic int8, batches of 2,048 tokens) or `int8w` (fp32 compute, spinning ONNX
threads, every pool process taking every core). After is the current model as it ships (embedding.MODEL_ID).
Cases (one JSON line each): `cli` (one process with every core, as `manage.py ingest`), and `pool` (two forked
processes sharing the cores, as the prefork worker `make run` starts). Model runs alternate within each round so
that load from other jobs on the machine falls on both alike; ratios matter more than the seconds.
Passages are SciFact abstracts (title + abstract, ~250 tokens on average, many cut at 256).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere without installing the project

from embed_models import named_embedder, session_of  # noqa: E402

from evidence.encode import embedding  # noqa: E402
from evidence.encode.embedding import (  # noqa: E402
    DYNAMIC_INT8_ID,
    FUSED_INT8_ID,
    LEGACY_MODEL_ID,
    MODEL_ID,
    Embedder,
)

CORPUS = ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl"
BEFORE = {"fdq8r1": FUSED_INT8_ID, "dq8pc": DYNAMIC_INT8_ID, "int8w": LEGACY_MODEL_ID}
BEFORE_NAME = ["fdq8r1"]
MODELS = {"before": DYNAMIC_INT8_ID, "after": MODEL_ID}


def peak_rss_mb() -> float:
    """Return this process's peak resident set size in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_corpus(path: Path) -> tuple[list[str], list[str]]:
    """Return (passages, sentences): passage = title + abstract, sentences = abstract sentences."""
    passages, sentences = [], []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            passages.append(f"{doc['title']}\n{' '.join(doc['abstract'])}")
            sentences.extend(doc["abstract"])
    return passages, sentences


def make_embedder(label: str, threads: int) -> Embedder:
    """Return the embedder as it ran before or as it runs now."""
    old = label == "before"
    if old and BEFORE_NAME[0] == "fdq8r1":
        embedder = named_embedder("fdq8r1", threads)  # as it ran: every optimizer on
    else:
        embedder = Embedder(model_id=MODELS[label], threads=threads, **({"max_batch_tokens": 2048} if old else {}))
    embedder.cache_entries = 0  # the bench embeds the same texts every round: time the model, not the cache
    if old and MODELS[label] == LEGACY_MODEL_ID:
        embedder.session = session_of(embedding.onnx_file_for(MODELS[label]), threads, spinning=True)
    return embedder


def _pool_child(label: str, threads: int, texts: list[str], out, go) -> None:
    embedder = make_embedder(label, threads)
    embedder.embed(texts[:4])
    out.put("ready")
    go.wait()
    started = time.perf_counter()
    embedder.embed(texts)
    out.put(time.perf_counter() - started)


def pool_seconds(label: str, threads: int, texts: list[str], processes: int = 2) -> float:
    """Return the wall time for `processes` forked processes to embed `texts` between them, started together."""
    ctx = multiprocessing.get_context("fork")
    queue, go = ctx.Queue(), ctx.Event()
    share = [texts[i::processes] for i in range(processes)]
    children = [ctx.Process(target=_pool_child, args=(label, threads, part, queue, go)) for part in share]
    for child in children:
        child.start()
    [queue.get() for _ in children]  # every child has loaded its model
    started = time.perf_counter()
    go.set()
    [queue.get() for _ in children]
    seconds = time.perf_counter() - started
    for child in children:
        child.join()
    return seconds


def main() -> None:
    """Run the cases and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=160)
    parser.add_argument("--sentences", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--before", choices=sorted(BEFORE), default="fdq8r1")
    args = parser.parse_args()
    MODELS["before"] = BEFORE[args.before]
    BEFORE_NAME[0] = args.before

    passages, sentences = load_corpus(args.corpus)
    rng = random.Random(0)
    samples = {"passages": rng.sample(passages, args.passages), "sentences": rng.sample(sentences, args.sentences)}
    cores = embedding.available_cores()
    loaded = {}
    for label, model_id in MODELS.items():
        started = time.perf_counter()
        loaded[label] = make_embedder(label, cores)
        loaded[label].embed(["warm up"])
        print(json.dumps({"case": "load", "model": model_id, "seconds": round(time.perf_counter() - started, 2)}))
    cli = {(label, kind): 0.0 for label in MODELS for kind in samples}
    pool = {(label, kind): 0.0 for label in MODELS for kind in samples}
    # int8w: each pool process took every core (EVIDENCE_EMBED_THREADS was never read); since dq8pc: its share.
    pool_threads = {"before": cores if args.before == "int8w" else max(1, cores // 2), "after": max(1, cores // 2)}
    load = []
    for _ in range(args.rounds):
        for kind, texts in samples.items():
            for label in MODELS:
                started = time.perf_counter()
                loaded[label].embed(texts)
                cli[label, kind] += time.perf_counter() - started
                pool[label, kind] += pool_seconds(label, pool_threads[label], texts)
                load.append(os.getloadavg()[0])
    for name, table, threads in (("cli", cli, {k: cores for k in MODELS}), ("pool", pool, pool_threads)):
        for kind, texts in samples.items():
            rates = {label: len(texts) * args.rounds / table[label, kind] for label in MODELS}
            print(json.dumps({
                "case": f"{name}_{kind}", "n": len(texts), "rounds": args.rounds,
                "before_per_s": round(rates["before"], 1), "after_per_s": round(rates["after"], 1),
                "speedup": round(rates["after"] / rates["before"], 2),
                "models": {**MODELS, "before": args.before}, "threads_per_process": threads,
                "processes": 1 if name == "cli" else 2,
                "load_avg_1m_mean": round(sum(load) / len(load), 2), "peak_rss_mb": round(peak_rss_mb(), 1),
            }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
