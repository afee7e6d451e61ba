"""Hybrid BM25 at scale: a synthetic collection of 1M passages (about 250K documents); latency and peak memory.

    .venv/bin/python bench/retrieval_1m.py [--quick] [--passages N]

Token ids are drawn as numpy arrays (Zipfian, 200K types; passages up to 250 words, 1-8 per document) and the
postings built in chunks straight from them, as strings would need tens of GB at this size. peak_mb is the
process's peak resident set size (ru_maxrss) after each step; latency is single-threaded.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evidence.retrieval.bm25 import BM25Index  # noqa: E402
from evidence.retrieval.hybrid import DOC_PARAMS, PASSAGE_PARAMS, HybridBM25  # noqa: E402

N_TYPES = 200_000
CHUNK = 100_000


def peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def term_cdf() -> np.ndarray:
    weights = 1 / np.arange(1, N_TYPES + 1) ** 1.07
    return np.cumsum(weights / weights.sum())


def postings(columns: int, chunks) -> sp.csr_matrix:
    """Return the (terms x units) tf matrix from chunks of (token ids, unit of each token, first unit)."""
    parts = []
    for tokens, units, first in chunks:
        ones = np.ones(len(tokens), dtype=np.float32)
        n = int(units.max()) - first + 1
        part = sp.csc_matrix((ones, (tokens, units - first)), shape=(N_TYPES, n), dtype=np.float32)
        part.sum_duplicates()
        parts.append(part)
    matrix = sp.hstack(parts, format="csr", dtype=np.float32)
    assert matrix.shape[1] == columns
    matrix.sort_indices()
    return matrix


def index_from(matrix: sp.csr_matrix, lengths: np.ndarray, ids: list[str], params) -> BM25Index:
    vocab = {f"w{i}": i for i in range(N_TYPES)}
    return BM25Index(vocab, matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32),
                     matrix.data.astype(np.float32), lengths.astype(np.int32), ids, params)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="200K passages")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    n_passages = 200_000 if args.quick else args.passages
    rng = np.random.default_rng(11)
    cdf = term_cdf()
    lengths = rng.lognormal(math.log(150), 0.5, n_passages).astype(np.int32).clip(5, 250)
    per_doc = rng.integers(1, 9, size=n_passages)  # passages per document, consumed until all are placed
    doc_of = np.repeat(np.arange(len(per_doc)), per_doc)[:n_passages]
    n_docs = int(doc_of[-1]) + 1
    ordinals = np.arange(n_passages) - np.searchsorted(doc_of, doc_of)
    starts = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])

    started = time.perf_counter()
    token_chunks = []
    for first in range(0, n_passages, CHUNK):
        last = min(first + CHUNK, n_passages)
        count = int(starts[last] - starts[first])
        tokens = np.searchsorted(cdf, rng.random(count)).astype(np.int32).clip(0, N_TYPES - 1)
        units = np.repeat(np.arange(first, last, dtype=np.int32), lengths[first:last])
        token_chunks.append((tokens, units, first))
    emit(case="generate", passages=n_passages, documents=n_docs, tokens=int(starts[-1]),
         seconds=round(time.perf_counter() - started, 1), peak_mb=peak_mb())  # fmt: skip

    started = time.perf_counter()
    passage_matrix = postings(n_passages, token_chunks)
    passage_ids = [f"d{d}#{o}" for d, o in zip(doc_of.tolist(), ordinals.tolist(), strict=True)]
    passage_index = index_from(passage_matrix, lengths, passage_ids, PASSAGE_PARAMS)
    del passage_matrix
    doc_chunks = [(tokens, doc_of[units], int(doc_of[first])) for tokens, units, first in token_chunks]
    # A document can straddle two chunks, so document columns are summed over chunks rather than stacked.
    doc_matrix = None
    for tokens, docs, _ in doc_chunks:
        part = sp.csr_matrix((np.ones(len(tokens), np.float32), (tokens, docs)), shape=(N_TYPES, n_docs))
        doc_matrix = part if doc_matrix is None else doc_matrix + part
    del doc_chunks, token_chunks
    doc_matrix.sort_indices()
    doc_lengths = np.bincount(doc_of, weights=lengths, minlength=n_docs).astype(np.int32)
    doc_index = index_from(doc_matrix, doc_lengths, [f"d{i}" for i in range(n_docs)], DOC_PARAMS)
    del doc_matrix
    hybrid = HybridBM25(doc_index, passage_index, [f"d{d}" for d in doc_of.tolist()], ordinals.tolist())
    build_s = time.perf_counter() - started
    index_mb = sum(a.nbytes for ix in (doc_index, passage_index) for a in (ix._indptr, ix._units, ix._tfs)) / 2**20
    emit(case="build", passages=n_passages, documents=n_docs, seconds=round(build_s, 1),
         index_mb=round(index_mb, 1), peak_mb=peak_mb())  # fmt: skip

    vocab = [f"w{i}" for i in range(N_TYPES)]
    queries = [[vocab[t] for t in np.searchsorted(cdf, rng.random(int(rng.integers(3, 9))))]
               for _ in range(args.queries)]  # fmt: skip
    hybrid.search(queries[0], 1000)
    for depth in (10, 1000):
        times = []
        for query in queries:
            t = time.perf_counter()
            hybrid.search(query, depth)
            times.append((time.perf_counter() - t) * 1000)
        emit(case="hybrid", corpus=f"synthetic-{n_passages // 1000}k-passages", passages=n_passages,
             documents=n_docs, depth=depth, p50_ms=round(float(np.percentile(times, 50)), 2),
             p95_ms=round(float(np.percentile(times, 95)), 2), queries=len(queries), peak_mb=peak_mb(),
             load_avg_1m=round(os.getloadavg()[0], 2))  # fmt: skip


if __name__ == "__main__":
    main()
