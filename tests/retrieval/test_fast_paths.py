"""The fast retrieval paths give exactly what the plain ones did: top-k by sampled threshold, cached term
impacts (dense and sparse, evicted or not), array fusion with string tie-breaks."""

import math

import numpy as np
import pytest

from evidence.retrieval import bm25 as bm25_module
from evidence.retrieval import postings as postings_module
from evidence.retrieval.bm25 import BM25Index, BM25Params, top_k_indices
from evidence.retrieval.fusion import hybrid_scores
from evidence.retrieval.hybrid import DOC_PARAMS, PASSAGE_PARAMS, HybridBM25

PARAMS = [BM25Params(), BM25Params(lossy_lengths=True), BM25Params(k1=1.2, b=0.75, variant="okapi")]


def full_sort(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The reference: every positive score sorted by score desc then index asc."""
    idx = np.flatnonzero(scores > 0)
    order = sorted(idx.tolist(), key=lambda i: (-scores[i], i))[:k]
    return [(i, float(scores[i])) for i in order]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 10, 1000, 5000])
def test_top_k_equals_a_full_sort_with_many_ties(dtype, k: int) -> None:
    rng = np.random.default_rng(k)
    # coarse values: thousands of ties, including at the k-th place; a third are zero
    scores = (rng.integers(0, 40, 200_000) * (rng.random(200_000) > 0.33)).astype(dtype) / 7
    idx, vals = top_k_indices(scores, k)
    assert list(zip(idx.tolist(), vals.astype(np.float64).tolist(), strict=True)) == full_sort(scores, k)


def test_top_k_when_few_scores_are_positive() -> None:
    scores = np.zeros(100_000, dtype=np.float32)
    scores[[5, 70_000, 99_999]] = [1.0, 3.0, 1.0]
    idx, vals = top_k_indices(scores, 1000)
    assert idx.tolist() == [70_000, 5, 99_999] and vals.tolist() == [3.0, 1.0, 1.0]


def reference_scores(index: BM25Index, query: list[str]) -> np.ndarray:
    """BM25 as the engine computed it before impacts were cached: a loop over terms into a float64 array."""
    out = np.zeros(len(index), dtype=np.float64)
    counts: dict[int, int] = {}
    for token in query:
        if token in index.vocab:
            counts[index.vocab[token]] = counts.get(index.vocab[token], 0) + 1
    n_docs = int(np.count_nonzero(index.lengths))
    for t, count in counts.items():
        s, e = index._indptr[t], index._indptr[t + 1]
        units, tf = index._units[s:e], index._tfs[s:e]
        if index.params.variant == "okapi":
            idf, norm = index._okapi_state()
            tf64 = tf.astype(np.float64)
            out[units] += count * (idf[t] * (tf64 * (index.params.k1 + 1) / (tf64 + norm[units])))
        else:
            weight = np.float32(count) * np.float32(math.log(1 + (n_docs - (e - s) + 0.5) / ((e - s) + 0.5)))
            out[units] += weight - weight / (np.float32(1.0) + tf * index._lucene_norm()[units])
    return out if index.params.variant == "okapi" else out.astype(np.float32).astype(np.float64)


def synthetic_corpus(n: int, seed: int = 3) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    weights = 1 / np.arange(1, 3001) ** 1.1
    cdf = np.cumsum(weights / weights.sum())
    docs = [[f"w{t}" for t in np.searchsorted(cdf, rng.random(int(rng.integers(1, 60))))] for _ in range(n)]
    queries = [[f"w{t}" for t in np.searchsorted(cdf, rng.random(int(rng.integers(1, 7))))] for _ in range(80)]
    queries.append(["w0", "w0", "w1", "w5", "w5", "w5"])  # repeated terms: boosted clauses
    return docs, queries


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("cache_bytes", [bm25_module.IMPACT_CACHE_BYTES, 20_000])  # roomy, and evicting
def test_cached_impacts_score_exactly_as_before(monkeypatch, params: BM25Params, cache_bytes: int) -> None:
    monkeypatch.setattr(bm25_module, "IMPACT_CACHE_BYTES", cache_bytes)
    docs, queries = synthetic_corpus(3000)
    index = BM25Index.build(docs, [f"d{i}" for i in range(len(docs))], params)
    assert 3 * index.document_frequency("w0") > len(index)  # the commonest term takes the dense path
    for _ in range(2):  # cold and warm cache
        for q in queries:
            expected = reference_scores(index, q)
            assert np.array_equal(index.scores(q), expected)
            assert index.top_k(q, 50) == full_sort(expected, 50)
    if cache_bytes < bm25_module.IMPACT_CACHE_BYTES:
        assert index._impact_bytes <= cache_bytes or len(index._impact_cache) == 1


def test_added_units_drop_the_cached_impacts() -> None:
    docs, queries = synthetic_corpus(2000)
    index = BM25Index.build(docs[:1000], [f"d{i}" for i in range(1000)], BM25Params())
    for q in queries:
        index.scores(q)
    index.add(docs[1000:], [f"d{i}" for i in range(1000, 2000)])
    full = BM25Index.build(docs, [f"d{i}" for i in range(2000)], BM25Params())
    for q in queries:
        assert np.array_equal(index.scores(q), full.scores(q))


def reference_hybrid(hybrid: HybridBM25, q: list[str], depth: int) -> tuple[list[tuple], dict]:
    """The dict-based fusion the engine used before it fused arrays."""
    doc_scores = {hybrid.doc_index.ids[i]: s for i, s in hybrid.doc_index.top_k(q, depth)}
    passage_max: dict[str, float] = {}
    passages: dict[str, list[tuple[int, float]]] = {}
    for i, s in hybrid.passage_index.top_k(q, depth):
        docid = hybrid.passage_docids[i]
        best = passages.setdefault(docid, [])
        if not best:
            passage_max[docid] = s
        if len(best) < hybrid.max_passages:
            best.append((hybrid.passage_ordinals[i], s))
    fused = hybrid_scores(doc_scores, passage_max, hybrid.weight)
    ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:depth]
    hits = [(d, s, passages[d][0][0] if d in passages else None) for d, s in ranked]
    return hits, {d: passages[d] for d, _, _ in hits if d in passages}


@pytest.mark.parametrize("depth", [5, 100, 1000])
def test_array_fusion_equals_the_dict_fusion(depth: int) -> None:
    docs, queries = synthetic_corpus(1500, seed=9)
    # docids whose string order differs from index order (d10 < d9), plus passages of documents the document
    # index lacks (e*): they still rank, on their passage score alone
    ids = [f"d{i}" for i in range(len(docs))]
    doc_index = BM25Index.build(docs, ids, DOC_PARAMS)
    p_tokens, p_docids, p_ordinals = [], [], []
    for d, toks in [*zip(ids, docs, strict=True), *((f"e{i}", docs[i][::-1]) for i in range(0, 300, 7))]:
        for o, start in enumerate(range(0, len(toks), 12)):
            p_tokens.append(toks[start : start + 12])
            p_docids.append(d)
            p_ordinals.append(o)
    passage_index = BM25Index.build(p_tokens, [f"{d}#{o}" for d, o in zip(p_docids, p_ordinals, strict=True)],
                                    PASSAGE_PARAMS)  # fmt: skip
    hybrid = HybridBM25(doc_index, passage_index, p_docids, p_ordinals)
    for q in queries:
        hits, passages = reference_hybrid(hybrid, q, depth)
        result = hybrid.search_detailed(q, depth)
        assert [(h.docid, h.score, h.passage) for h in result.hits] == hits
        assert result.passages == passages and list(result.passages) == list(passages)
        assert hybrid.search(q, depth) == result.hits


@pytest.mark.parametrize("chunk_tokens", [1, 37, 500])
def test_postings_built_in_chunks_equal_one_pass(monkeypatch, chunk_tokens: int) -> None:
    docs, _ = synthetic_corpus(800)
    docs[5] = []  # an empty unit too
    whole = BM25Index.build(docs, [f"d{i}" for i in range(len(docs))], BM25Params())
    monkeypatch.setattr(postings_module, "_POSTINGS_CHUNK_TOKENS", chunk_tokens)
    chunked = BM25Index.build(docs, [f"d{i}" for i in range(len(docs))], BM25Params())
    assert chunked.vocab == whole.vocab
    for a, b in zip(chunked.to_arrays()[0].values(), whole.to_arrays()[0].values(), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
