"""Throughput of the local System 1 judge on 2 cores; one JSON line per case.

Usage: .venv/bin/python bench/judge_bench.py [--threads 2] [--repeat 5]
Cases: Noul judgments/s on QASPER paragraphs of 50-250 words with stored embeddings (dot products and
features) and with embedding included; Score judgments/s on SciFact abstracts (top 100 of a claim);
time to localize evidence for one question over 60 candidate units (SciFact abstracts, sentence blocks).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere without installing the project


def main() -> None:
    """Run every case and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before numpy loads: the bench is about 2 cores

    from bench.fitting import devsets
    from evidence.encode.embedding import Embedder
    from evidence.judge.local import LocalJudge
    from evidence.judge.localize import SHORT_DOCUMENT_OPTIONS as LOCALIZE_OPTIONS
    from evidence.judge.localize import localize
    from evidence.judge.relevance import assess_relevance
    from evidence.judge.types import NoulQuestion, Unit

    embedder = Embedder(threads=args.threads)
    judge = LocalJudge(embed=embedder.embed)
    qs = devsets.load_qasper(embedder)
    questions, sizes = [], []
    for qi, q in enumerate(qs.questions):
        for unit in qs.units_for(qi):
            for block in unit.blocks:
                words = len(block.text.split())
                if 50 <= words <= 250:
                    questions.append(
                        NoulQuestion(
                            q.text,
                            Unit(unit.docid, unit.title, (block,), vector=unit.vector),
                            goal_vector=qs.query_vecs[qi],
                        )
                    )
                    sizes.append(words)

    def timed(fn: object) -> float:
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        return time.perf_counter() - start

    judge.noul(questions[:50])  # warm-up: load heads
    stored = statistics.median(timed(lambda: judge.noul(questions)) for _ in range(args.repeat))
    print(
        json.dumps(
            {
                "case": "noul_stored_embeddings",
                "judgments": len(questions),
                "words_median": statistics.median(sizes),
                "judgments_per_s": round(len(questions) / stored, 1),
                "threads": args.threads,
            }
        )
    )
    bare = [
        replace(
            q,
            goal_vector=None,
            unit=Unit(
                q.unit.docid, q.unit.title, tuple(replace(b, vector=None) for b in q.unit.blocks), vector=q.unit.vector
            ),
        )
        for q in questions
    ]
    judge._goal_vecs.clear()
    fresh = timed(lambda: judge.noul(bare))
    print(
        json.dumps(
            {
                "case": "noul_including_embedding",
                "judgments": len(bare),
                "judgments_per_s": round(len(bare) / fresh, 1),
                "threads": args.threads,
            }
        )
    )

    sf = devsets.load_scifact(embedder)
    claims = list(range(0, len(sf.claims), max(1, len(sf.claims) // args.repeat)))[: args.repeat]
    score_s, loc_s, spans = [], [], []
    for ci in claims:
        text = sf.claims[ci].text
        judge._goal_vecs[text] = sf.query_vecs[ci]
        units = sf.candidate_units(sf.rankings(ci)["fusion"], 100)
        score_s.append(timed(lambda units=units, text=text: assess_relevance(judge, text, units)))
        top = units[:60]
        judge._memo.clear()
        start = time.perf_counter()
        result = localize(judge, [text], top, **LOCALIZE_OPTIONS)  # type: ignore[arg-type]
        loc_s.append(time.perf_counter() - start)
        spans.append(len(result.spans))
    print(
        json.dumps(
            {
                "case": "score_relevance_top100",
                "claims": len(claims),
                "seconds_per_claim_p50": round(statistics.median(score_s), 4),
                "judgments_per_s": round(100 / statistics.median(score_s), 1),
            }
        )
    )
    print(
        json.dumps(
            {
                "case": "localize_one_question_60_units",
                "claims": len(claims),
                "seconds_p50": round(statistics.median(loc_s), 4),
                "seconds_max": round(max(loc_s), 4),
                "spans_median": statistics.median(spans),
                "batches_of_10": 6,
                "embeddings": "stored",
            }
        )
    )


if __name__ == "__main__":
    main()
