"""Hybrid BM25 at scale: a synthetic collection of 1M passages (about 250K documents); latency and peak memory.

    .venv/bin/python bench/retrieval_1m.py [--quick] [--passages N] [--before CHECKOUT]

Token ids are drawn as numpy arrays (Zipfian, 200K types; passages up to 250 words, 1-8 per document) and the
postings built one chunk of tokens at a time straight from them (strings would need tens of GB at this size; no
chunk's tokens are kept once its postings are made). peak_mb is the process's peak resident set size
(ru_maxrss) after each step; latency is single-threaded. With --before (see bench/before.py) the other engine
runs on the same arrays, query by query interleaved with this one, and its rankings are compared.
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
from dataclasses import asdict  # noqa: E402
from itertools import pairwise  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from before import as_tuples, load_before  # noqa: E402

from evidence.retrieval.bm25 import BM25Index  # noqa: E402
from evidence.retrieval.hybrid import DOC_PARAMS, PASSAGE_PARAMS, HybridBM25  # noqa: E402

N_TYPES = 200_000
CHUNK = 25_000  # passages per chunk of tokens drawn (the stream is the same for any chunk size)


def peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def term_cdf() -> np.ndarray:
    weights = 1 / np.arange(1, N_TYPES + 1) ** 1.07
    return np.cumsum(weights / weights.sum())


class Postings:
    """A (terms x units) tf matrix built from chunks in unit order, each chunk's postings kept until finish().

    Only one chunk's tokens exist at a time; a chunk's postings are kept in the smallest types that hold them (its
    units as offsets within the chunk, uint16 for a chunk of up to 65,536 units; tfs as uint8 while no tf passes
    255: 3 bytes a posting for passages, against 6). finish() lays every term's postings out in unit order into
    the final CSR arrays (int32 units, float32 tfs, as the engine reads them).
    """

    def __init__(self) -> None:
        self.pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []  # (per-term counts, units, tfs, first)
        self.columns = 0

    def add(self, tokens: np.ndarray, local_units: np.ndarray, n_units: int) -> None:
        """Add n_units units (columns self.columns onwards); token i belongs to local unit local_units[i]."""
        key = tokens.astype(np.int64) * n_units + local_units
        key, tfs = np.unique(key, return_counts=True)  # sorted by (term, unit)
        terms = key // n_units
        units = key - terms * n_units
        unit_type = np.uint16 if n_units <= 1 << 16 else np.int32
        tf_type = np.uint8 if tfs.max(initial=0) <= 255 else np.uint16
        counts = np.bincount(terms, minlength=N_TYPES).astype(np.int32)
        self.pieces.append((counts, units.astype(unit_type), tfs.astype(tf_type), self.columns))
        self.columns += n_units

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (indptr int64, units int32, tfs float32), releasing the pieces as they are copied."""
        totals = np.sum([counts for counts, _, _, _ in self.pieces], axis=0, dtype=np.int64)
        indptr = np.zeros(N_TYPES + 1, dtype=np.int64)
        np.cumsum(totals, out=indptr[1:])
        units = np.empty(int(indptr[-1]), dtype=np.int32)
        tfs = np.empty(int(indptr[-1]), dtype=np.float32)
        filled = indptr[:-1].copy()  # where each term's next postings go
        while self.pieces:
            counts, piece_units, piece_tfs, first = self.pieces.pop(0)
            starts = np.zeros(N_TYPES + 1, dtype=np.int64)
            np.cumsum(counts, out=starts[1:])
            dest = np.repeat(filled - starts[:-1], counts) + np.arange(len(piece_units))
            units[dest] = piece_units.astype(np.int32) + np.int32(first)
            tfs[dest] = piece_tfs
            filled += counts
            del counts, piece_units, piece_tfs, dest
        return indptr, units, tfs


def document_postings(passages: tuple[np.ndarray, np.ndarray, np.ndarray], doc_of: np.ndarray,
                      block: int = 4_000_000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Return the document level's CSR arrays from the passage level's: a document's tf of a term is the sum over
    its passages (which partition its tokens), so the document postings need no tokens of their own.

    Passages are numbered in document order and each term's postings are in unit order, so a term's documents come
    sorted. Two passes over blocks of terms (about `block` postings each): one counts each term's documents, one
    writes them into arrays allocated once, so no second copy of the document level exists.
    """
    indptr, units, tfs = passages
    edges = [0]
    while edges[-1] < N_TYPES:  # term blocks of about `block` postings (a bigger term alone is its own block)
        edges.append(max(edges[-1] + 1, int(np.searchsorted(indptr, indptr[edges[-1]] + block, side="right")) - 1))
    edges[-1] = min(edges[-1], N_TYPES)

    def blocks():
        for t0, t1 in pairwise(edges):
            s, e = int(indptr[t0]), int(indptr[t1])
            rows = np.repeat(np.arange(t1 - t0, dtype=np.int32), np.diff(indptr[t0 : t1 + 1]))
            docs = doc_of[units[s:e]]
            first = np.ones(e - s, dtype=bool)  # a posting starting a (term, document) run
            first[1:] = (docs[1:] != docs[:-1]) | (rows[1:] != rows[:-1])
            yield t0, t1, s, rows, docs, np.flatnonzero(first)

    doc_counts = np.zeros(N_TYPES, dtype=np.int64)
    for t0, t1, _, rows, _, starts in blocks():
        doc_counts[t0:t1] = np.bincount(rows[starts], minlength=t1 - t0)
    doc_indptr = np.zeros(N_TYPES + 1, dtype=np.int64)
    np.cumsum(doc_counts, out=doc_indptr[1:])
    doc_units = np.empty(int(doc_indptr[-1]), dtype=np.int32)
    doc_tfs = np.empty(int(doc_indptr[-1]), dtype=np.float32)
    for t0, t1, s, _, docs, starts in blocks():
        out = slice(int(doc_indptr[t0]), int(doc_indptr[t1]))
        doc_units[out] = docs[starts]
        doc_tfs[out] = np.add.reduceat(tfs[s : s + len(docs)], starts) if len(starts) else []
    return doc_indptr, doc_units, doc_tfs


def index_from(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], lengths: np.ndarray, ids: list[str], params,
               module=None) -> BM25Index:  # fmt: skip
    indptr, units, tfs = arrays
    vocab = {f"w{i}": i for i in range(N_TYPES)}
    cls = BM25Index if module is None else module.BM25Index
    return cls(vocab, indptr, units, tfs, lengths.astype(np.int32), ids, params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="200K passages")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--before", type=Path, help="a checkout of evidence/retrieval to time side by side")
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

    # One chunk of tokens at a time (the same random stream as drawing them all first): passage postings per
    # chunk; the document level is summed from the passage level once that is finished (document_postings).
    started = time.perf_counter()
    passage_postings = Postings()
    for first in range(0, n_passages, CHUNK):
        last = min(first + CHUNK, n_passages)
        count = int(starts[last] - starts[first])
        tokens = np.searchsorted(cdf, rng.random(count)).astype(np.int32).clip(0, N_TYPES - 1)
        units = np.repeat(np.arange(last - first, dtype=np.int64), lengths[first:last])
        passage_postings.add(tokens, units, last - first)
        del tokens, units
    generate_s = time.perf_counter() - started
    emit(case="generate", passages=n_passages, documents=n_docs, tokens=int(starts[-1]),
         seconds=round(generate_s, 1), peak_mb=peak_mb())  # fmt: skip

    passage_ids = [f"d{d}#{o}" for d, o in zip(doc_of.tolist(), ordinals.tolist(), strict=True)]
    passage_arrays = passage_postings.finish()
    passage_index = index_from(passage_arrays, lengths, passage_ids, PASSAGE_PARAMS)
    doc_lengths = np.bincount(doc_of, weights=lengths, minlength=n_docs).astype(np.int32)
    doc_arrays = document_postings(passage_arrays, doc_of.astype(np.int32))
    doc_ids = [f"d{i}" for i in range(n_docs)]
    doc_index = index_from(doc_arrays, doc_lengths, doc_ids, DOC_PARAMS)
    passage_docids = [f"d{d}" for d in doc_of.tolist()]
    hybrid = HybridBM25(doc_index, passage_index, passage_docids, ordinals.tolist())
    build_s = time.perf_counter() - started
    index_mb = sum(a.nbytes for arrays in (doc_arrays, passage_arrays) for a in arrays) / 2**20
    emit(case="build", passages=n_passages, documents=n_docs, seconds=round(build_s, 1),
         index_mb=round(index_mb, 1), peak_mb=peak_mb())  # fmt: skip

    vocab = [f"w{i}" for i in range(N_TYPES)]
    queries = [[vocab[t] for t in np.searchsorted(cdf, rng.random(int(rng.integers(3, 9))))]
               for _ in range(args.queries)]  # fmt: skip
    engines = {"after": hybrid}
    if args.before:
        old = load_before(args.before)
        engines["before"] = old["hybrid"].HybridBM25(
            index_from(doc_arrays, doc_lengths, doc_ids, old["bm25"].BM25Params(**asdict(DOC_PARAMS)), old["bm25"]),
            index_from(passage_arrays, lengths, passage_ids, old["bm25"].BM25Params(**asdict(PASSAGE_PARAMS)),
                       old["bm25"]),
            passage_docids, ordinals.tolist())  # fmt: skip
    for engine in engines.values():
        engine.search(queries[0], 1000)
    for depth in (10, 1000):
        times: dict[str, list[float]] = {name: [] for name in engines}
        identical = True
        for query in queries:
            results = {}
            for name, engine in engines.items():  # interleaved: both see the same machine load
                t = time.perf_counter()
                results[name] = engine.search(query, depth)
                times[name].append((time.perf_counter() - t) * 1000)
            if "before" in results:
                identical &= as_tuples(results["before"]) == as_tuples(results["after"])
        extra = {}
        if "before" in engines:
            extra = {"before_p50_ms": round(float(np.percentile(times["before"], 50)), 2),
                     "before_p95_ms": round(float(np.percentile(times["before"], 95)), 2),
                     "identical_to_before": identical}  # fmt: skip
        emit(case="hybrid", corpus=f"synthetic-{n_passages // 1000}k-passages", passages=n_passages,
             documents=n_docs, depth=depth, p50_ms=round(float(np.percentile(times["after"], 50)), 2),
             p95_ms=round(float(np.percentile(times["after"], 95)), 2), **extra, queries=len(queries),
             peak_mb=peak_mb(), load_avg_1m=round(os.getloadavg()[0], 2))  # fmt: skip


if __name__ == "__main__":
    main()
