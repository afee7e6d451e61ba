"""Where an ingest's embedding time goes: tokenizing, padding and the model, on real papers' passages.

    .venv/bin/python bench/embed_breakdown.py [--papers 20]

Parses the realqa PDFs (../shared/data/realqa/papers), chunks them into passages as ingest does (title + body),
and embeds them with the shipped embedder's own steps, timed apart: tokenizer (encode_batch), batching by
length, the ONNX session per batch (with its padded and real token counts), pooling. One JSON line per case:
the totals, then the batch shapes by padded width. The passage text and batches are exactly what ingest embeds;
the per-process cache is bypassed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
DATA = ROOT.parent / "shared" / "data" / "realqa" / "papers"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20)
    args = parser.parse_args()
    import django

    django.setup()
    import numpy as np

    from evidence.encode.batching import length_batches
    from evidence.encode.embedding import Embedder
    from evidence.ingest.chunking import make_passages
    from evidence.ingest.parsers import parse_file
    from evidence.ingest.store import passage_index_text

    texts: list[str] = []
    for path in sorted(DATA.glob("*.pdf"))[: args.papers]:
        for document in parse_file(path.name, path.read_bytes()):
            for passage in make_passages(document):
                texts.append(passage_index_text(document.title, document.text[passage.start : passage.end]))
    embedder = Embedder()
    embedder.embed(texts[:8])  # warm the session
    started = time.perf_counter()
    ids = [enc.ids for enc in embedder.tokenizer.encode_batch(texts)]
    tokenize_s = time.perf_counter() - started
    started = time.perf_counter()
    batches = length_batches([len(seq) for seq in ids], embedder.batch_size, embedder.max_batch_tokens)
    batching_s = time.perf_counter() - started
    model_s, real, padded = 0.0, 0, 0
    widths: Counter[int] = Counter()
    by_width: dict[int, float] = {}
    for batch in batches:
        seqs = [ids[i] for i in batch]
        width = max(len(s) for s in seqs)
        real += sum(len(s) for s in seqs)
        padded += width * len(seqs)
        started = time.perf_counter()
        embedder._run(seqs)
        took = time.perf_counter() - started
        model_s += took
        bucket = (width // 64 + 1) * 64
        widths[bucket] += len(seqs)
        by_width[bucket] = by_width.get(bucket, 0.0) + took
    total = tokenize_s + batching_s + model_s
    print(json.dumps({
        "case": "embed_breakdown", "passages": len(texts), "threads": embedder.threads, "batches": len(batches),
        "tokenize_s": round(tokenize_s, 3), "batching_s": round(batching_s, 4), "model_s": round(model_s, 2),
        "model_share": round(model_s / total, 3), "real_tokens": real, "padded_tokens": padded,
        "padding_waste": round(1 - real / padded, 4), "passages_per_s": round(len(texts) / total, 1),
        "truncated_at_256": int(sum(len(s) >= embedder.max_length for s in ids)),
        "mean_tokens": round(float(np.mean([len(s) for s in ids])), 1),
    }))  # fmt: skip
    for bucket in sorted(widths):
        print(json.dumps({
            "case": "embed_by_width", "width_up_to": bucket, "passages": widths[bucket],
            "seconds": round(by_width[bucket], 2), "ms_per_passage": round(1000 * by_width[bucket] / widths[bucket], 2),
        }))  # fmt: skip


if __name__ == "__main__":
    main()
