"""Retrieval benchmark: latency, build cost, size and quality of the BM25 engine; one JSON line per case.

    .venv/bin/python bench/retrieval_bench.py [--quick] [--anserini artifacts/anserini_scifact.json]

Latency is single-threaded (thread env vars set before numpy loads). peak_mb is the process's peak
resident set size so far (resource.getrusage ru_maxrss), so later cases include earlier ones.
speedup_vs_rank_bm25 divides rank_bm25's p50 (BM25Okapi.get_scores, no ranking) by ours (okapi
variant, scores + top-k), after checking both give the same scores to 1e-6.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from before import as_tuples, load_before  # noqa: E402

from evidence.eval.metrics import ndcg_at_k  # noqa: E402
from evidence.retrieval.analyzer import get_analyzer  # noqa: E402
from evidence.retrieval.bm25 import BM25Index, BM25Params  # noqa: E402
from evidence.retrieval.hybrid import DOC_PARAMS, PASSAGE_PARAMS, HybridBM25  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
LUCENE = BM25Params(k1=0.9, b=0.4)
OKAPI = BM25Params(k1=0.9, b=0.4, variant="okapi")


def emit(**fields: object) -> None:
    """Print one result line; `ndcg_at_10` is written `ndcg@10`, the key the reports use."""
    print(json.dumps({key.replace("_at_", "@"): value for key, value in fields.items()}), flush=True)


def peak_mb() -> float:
    """Return the process's peak RSS in MiB (ru_maxrss is KiB on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def latency(fn: Callable[[Sequence[str]], object], queries: Sequence[Sequence[str]]) -> tuple[float, float]:
    """Return (p50, p95) milliseconds of fn over queries, after a short warm-up."""
    for q in queries[:5]:
        fn(q)
    ms = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        ms.append((time.perf_counter() - t) * 1000)
    return round(float(np.percentile(ms, 50)), 3), round(float(np.percentile(ms, 95)), 3)


def index_mb(index: BM25Index) -> float:
    """Return the on-disk size of the saved index in MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        index.save(Path(tmp) / "idx")
        return round(sum(p.stat().st_size for p in (Path(tmp) / "idx").iterdir()) / 2**20, 2)


def ndcg10(ranked: Sequence[str], relevant: set[str]) -> float:
    """Return binary-gain nDCG@10 (the evaluator's nDCG)."""
    return ndcg_at_k(ranked, dict.fromkeys(relevant, 1.0), 10)


def check_same_scores(index: BM25Index, reference: BM25Okapi, queries: Sequence[Sequence[str]]) -> None:
    """Fail loudly unless our okapi scores equal rank_bm25's."""
    for q in queries:
        np.testing.assert_allclose(index.scores(q), reference.get_scores(q), rtol=1e-6, atol=1e-12)


def load_scifact() -> tuple[list[str], list[str], list[dict]]:
    """Return SciFact ids, texts (title + abstract) and train claims."""
    ids, texts = [], []
    with (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            ids.append(str(doc["doc_id"]))
            texts.append(doc["title"] + " " + " ".join(doc["abstract"]))
    claims = json.loads((DATA / "scifact" / "claims_train.json").read_text(encoding="utf-8"))
    return ids, texts, claims


def bench_scifact(anserini_path: Path | None) -> None:
    """Benchmark BM25, hybrid and rank_bm25 on SciFact; compare with Anserini when its results exist."""
    ids, texts, claims = load_scifact()
    analyze = get_analyzer("lucene")
    t = time.perf_counter()
    tokens = [analyze(x) for x in texts]
    analyze_s = time.perf_counter() - t
    queries = [analyze(c["claim"]) for c in claims]
    relevant = [{str(d) for d in c["cited_doc_ids"]} for c in claims]

    reference = BM25Okapi(tokens, k1=OKAPI.k1, b=OKAPI.b)
    okapi = BM25Index.build(tokens, ids, OKAPI)
    check_same_scores(okapi, reference, queries)
    rank_p50, rank_p95 = latency(reference.get_scores, queries[:200])
    emit(case="rank_bm25", corpus="scifact", depth=None, p50_ms=rank_p50, p95_ms=rank_p95, queries=200)
    p50, p95 = latency(lambda q: okapi.top_k(q, 1000), queries)
    emit(
        case="bm25_okapi",
        corpus="scifact",
        depth=1000,
        p50_ms=p50,
        p95_ms=p95,
        same_scores_as_rank_bm25=True,
        speedup_vs_rank_bm25=round(rank_p50 / p50, 1),
    )

    for lossy in (False, True):
        params = BM25Params(k1=0.9, b=0.4, lossy_lengths=lossy)
        t = time.perf_counter()
        index = BM25Index.build(tokens, ids, params)
        build_s = time.perf_counter() - t
        ndcg = np.mean(
            [ndcg10([ids[i] for i, _ in index.top_k(q, 10)], r) for q, r in zip(queries, relevant, strict=True)]
        )
        for depth in (10, 100, 1000):
            p50, p95 = latency(lambda q, d=depth, ix=index: ix.top_k(q, d), queries)
            emit(
                case="bm25",
                corpus="scifact",
                params="k1=0.9,b=0.4,lucene" + (",lossy" if lossy else ""),
                depth=depth,
                p50_ms=p50,
                p95_ms=p95,
                build_s=round(build_s, 3),
                analyze_s=round(analyze_s, 2),
                index_mb=index_mb(index),
                peak_mb=peak_mb(),
                speedup_vs_rank_bm25=round(rank_p50 / p50, 1),
                ndcg_at_10=round(float(ndcg), 4),
            )

    # SciFact abstracts are one passage each: the passage side is the same units at k1=0.9, b=0.4
    passages = BM25Index.build(tokens, ids, PASSAGE_PARAMS)
    for name, doc_params in (("k1=25,b=1", DOC_PARAMS), ("k1=0.9,b=0.4", LUCENE)):
        t = time.perf_counter()
        hybrid = HybridBM25(BM25Index.build(tokens, ids, doc_params), passages, ids, [0] * len(ids))
        build_s = time.perf_counter() - t
        ndcg = np.mean(
            [ndcg10([h.docid for h in hybrid.search(q, 1000)], r) for q, r in zip(queries, relevant, strict=True)]
        )
        p50, p95 = latency(lambda q, h=hybrid: h.search(q, 1000), queries)
        emit(
            case="hybrid",
            corpus="scifact",
            params=f"doc {name}; passage k1=0.9,b=0.4",
            depth=1000,
            p50_ms=p50,
            p95_ms=p95,
            build_s=round(build_s, 3),
            peak_mb=peak_mb(),
            speedup_vs_rank_bm25=round(rank_p50 / p50, 1),
            ndcg_at_10=round(float(ndcg), 4),
        )

    if anserini_path and anserini_path.exists():
        bench_parity(anserini_path, tokens, ids, queries, relevant, claims)


def bench_parity(
    path: Path,
    tokens: list[list[str]],
    ids: list[str],
    queries: list[list[str]],
    relevant: list[set[str]],
    claims: list[dict],
) -> None:
    """Compare our Lucene-parity BM25 with Anserini's rankings written by bench/anserini_peer.py."""
    peer = json.loads(path.read_text())
    index = BM25Index.build(tokens, ids, BM25Params(k1=0.9, b=0.4, lossy_lengths=True))
    same10 = same1000 = close = total = 0
    ours_ndcg, their_ndcg = [], []
    for q, r, c in zip(queries, relevant, claims, strict=True):
        theirs = peer["rankings"][str(c["id"])]
        scores = index.scores(q)
        # Lucene breaks score ties by docid string: rank the same way
        hit = np.flatnonzero(scores > 0)
        ours = sorted(((ids[i], float(scores[i])) for i in hit), key=lambda x: (-x[1], x[0]))[: len(theirs)]
        same10 += [d for d, _ in ours[:10]] == [d for d, _ in theirs[:10]]
        same1000 += [d for d, _ in ours] == [d for d, _ in theirs]
        ours_ndcg.append(ndcg10([d for d, _ in ours], r))
        their_ndcg.append(ndcg10([d for d, _ in theirs], r))
        by_id = dict(ours)
        for d, s in theirs:
            total += 1
            # Anserini reports scores rounded to 4 decimals (in float32); ranking uses the exact ones
            close += d in by_id and abs(by_id[d] - s) <= 5e-5 + 4 * float(np.spacing(np.float32(s)))
    p50, p95 = latency(lambda q: index.top_k(q, 1000), queries)
    emit(
        case="anserini",
        corpus="scifact",
        depth=1000,
        identical_top10=round(same10 / len(claims), 4),
        identical_top1000=round(same1000 / len(claims), 4),
        scores_equal_to_4_decimals=round(close / total, 5),
        ndcg_at_10=round(float(np.mean(ours_ndcg)), 4),
        anserini_ndcg_at_10=round(float(np.mean(their_ndcg)), 4),
        p50_ms=p50,
        p95_ms=p95,
        anserini_build_s=round(peer["build_s"], 2),
        anserini_index_mb=round(peer["index_mb"], 2),
        anserini_timings_ms=peer["timings"],
    )


def synthetic(n_docs: int, seed: int = 7) -> tuple[list[list[str]], list[str], list[list[str]]]:
    """Return (doc tokens, doc ids, queries): lognormal lengths, Zipfian 200k-type vocabulary."""
    rng = np.random.default_rng(seed)
    n_types = 200_000
    weights = 1 / np.arange(1, n_types + 1) ** 1.07
    cdf = np.cumsum(weights / weights.sum())
    vocab = [f"w{i}" for i in range(n_types)]
    # abstract-like documents around 200 words, and 3% long ones (~3,000 words) that split into passages
    lengths = (
        np.where(
            rng.random(n_docs) < 0.03,
            rng.lognormal(math.log(3000), 0.5, n_docs),
            rng.lognormal(math.log(200), 0.45, n_docs),
        )
        .astype(int)
        .clip(5, 30_000)
    )
    draws = np.searchsorted(cdf, rng.random(int(lengths.sum())))
    docs, start = [], 0
    for n in lengths:
        docs.append([vocab[t] for t in draws[start : start + n]])
        start += n
    queries = [[vocab[t] for t in np.searchsorted(cdf, rng.random(int(rng.integers(3, 9))))] for _ in range(300)]
    return docs, [f"d{i}" for i in range(n_docs)], queries


def before_hybrid(root: Path, hybrid: HybridBM25):
    """Return the other checkout's HybridBM25 over the same arrays as hybrid (bench/before.py)."""
    old = load_before(root)

    def same(index: BM25Index):
        arrays, header = index.to_arrays()
        return old["bm25"].BM25Index(index.vocab, arrays["indptr"], arrays["units"], arrays["tfs"], arrays["lengths"],
                                     index.ids, old["bm25"].BM25Params(**header["params"]))  # fmt: skip

    return old["hybrid"].HybridBM25(same(hybrid.doc_index), same(hybrid.passage_index), hybrid.passage_docids,
                                    hybrid.passage_ordinals)  # fmt: skip


def interleaved(engines: dict[str, Callable], queries: Sequence[Sequence[str]]) -> tuple[dict[str, float], bool]:
    """Return each engine's p50 ms over queries, run query by query in turn, and whether all rankings agree."""
    for q in queries[:5]:
        for fn in engines.values():
            fn(q)
    times: dict[str, list[float]] = {name: [] for name in engines}
    identical = True
    for q in queries:
        results = []
        for name, fn in engines.items():
            t = time.perf_counter()
            results.append(as_tuples(fn(q)))
            times[name].append((time.perf_counter() - t) * 1000)
        identical &= all(r == results[0] for r in results)
    return {name: round(float(np.percentile(ms, 50)), 3) for name, ms in times.items()}, identical


def bench_synthetic(n_docs: int, rank_sample: int, before: Path | None = None) -> None:
    """Benchmark BM25 and hybrid on a synthetic corpus; time rank_bm25 on a query sample."""
    corpus = f"synthetic-{n_docs // 1000}k"
    docs, ids, queries = synthetic(n_docs)
    t = time.perf_counter()
    index = BM25Index.build(docs, ids, LUCENE)
    build_s = time.perf_counter() - t
    # passages: at most 250 words, as the ingestion chunker makes them
    p_tokens, p_docids, p_ordinals = [], [], []
    for d, toks in zip(ids, docs, strict=True):
        for o, start in enumerate(range(0, len(toks), 250)):
            p_tokens.append(toks[start : start + 250])
            p_docids.append(d)
            p_ordinals.append(o)
    t = time.perf_counter()
    passage_index = BM25Index.build(
        p_tokens, [f"{d}#{o}" for d, o in zip(p_docids, p_ordinals, strict=True)], PASSAGE_PARAMS
    )
    doc_index = BM25Index.build(docs, ids, DOC_PARAMS)
    hybrid_build_s = time.perf_counter() - t
    hybrid = HybridBM25(doc_index, passage_index, p_docids, p_ordinals)

    okapi = BM25Index.build(docs, ids, OKAPI)
    t = time.perf_counter()
    reference = BM25Okapi(docs, k1=OKAPI.k1, b=OKAPI.b)
    rank_build_s = time.perf_counter() - t
    sample = queries[:rank_sample]
    check_same_scores(okapi, reference, sample)
    rank_p50, rank_p95 = latency(reference.get_scores, sample)
    del reference
    emit(
        case="rank_bm25",
        corpus=corpus,
        depth=None,
        p50_ms=rank_p50,
        p95_ms=rank_p95,
        build_s=round(rank_build_s, 2),
        queries=len(sample),
    )
    # The hybrid needs both levels scored: rank_bm25 over the passages too, checked equal to ours (okapi).
    okapi_passages = BM25Index.build(p_tokens, [str(i) for i in range(len(p_tokens))], OKAPI)
    passage_reference = BM25Okapi(p_tokens, k1=OKAPI.k1, b=OKAPI.b)
    check_same_scores(okapi_passages, passage_reference, sample)
    rank_passage_p50, _ = latency(passage_reference.get_scores, sample)
    del passage_reference, okapi_passages
    emit(
        case="rank_bm25_passages",
        corpus=corpus,
        depth=None,
        p50_ms=rank_passage_p50,
        passages=len(p_tokens),
        queries=len(sample),
    )
    p50, p95 = latency(lambda q: okapi.top_k(q, 1000), queries)
    emit(
        case="bm25_okapi",
        corpus=corpus,
        depth=1000,
        p50_ms=p50,
        p95_ms=p95,
        same_scores_as_rank_bm25=True,
        speedup_vs_rank_bm25=round(rank_p50 / p50, 1),
    )
    size = index_mb(index)
    for depth in (10, 100, 1000):
        p50, p95 = latency(lambda q, d=depth: index.top_k(q, d), queries)
        emit(
            case="bm25",
            corpus=corpus,
            params="k1=0.9,b=0.4,lucene",
            depth=depth,
            p50_ms=p50,
            p95_ms=p95,
            build_s=round(build_s, 2),
            index_mb=size,
            peak_mb=peak_mb(),
            speedup_vs_rank_bm25=round(rank_p50 / p50, 1),
        )
    p50, p95 = latency(lambda q: hybrid.search(q, 1000), queries)
    extra: dict[str, object] = {}
    if before:
        engines = {"after": lambda q: hybrid.search(q, 1000), "before": before_hybrid(before, hybrid).search}
        p50s, identical = interleaved({"after": engines["after"], "before": lambda q: engines["before"](q, 1000)},
                                      queries)  # fmt: skip
        extra = {"interleaved_p50_ms": p50s["after"], "before_p50_ms": p50s["before"],
                 "identical_to_before": identical}  # fmt: skip
    emit(case="hybrid", corpus=corpus, params="doc k1=25,b=1; passage k1=0.9,b=0.4", depth=1000, p50_ms=p50,
         p95_ms=p95, build_s=round(hybrid_build_s, 2), passages=len(p_tokens),
         index_mb=round(index_mb(doc_index) + index_mb(passage_index), 2), peak_mb=peak_mb(),
         speedup_vs_rank_bm25=round((rank_p50 + rank_passage_p50) / p50, 1), **extra,
         load_avg_1m=round(os.getloadavg()[0], 2))  # fmt: skip


def main() -> None:
    """Run every case and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k synthetic docs instead of 100k")
    parser.add_argument("--anserini", type=Path, default=ROOT / "artifacts" / "anserini_scifact.json")
    parser.add_argument("--before", type=Path, help="a checkout of evidence/retrieval to time side by side")
    parser.add_argument("--synthetic-only", action="store_true", help="skip the SciFact cases")
    args = parser.parse_args()
    if not args.synthetic_only:
        bench_scifact(args.anserini)
    bench_synthetic(20_000 if args.quick else 100_000, rank_sample=5 if args.quick else 10, before=args.before)


if __name__ == "__main__":
    main()
