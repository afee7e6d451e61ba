"""BM25 scores against references: rank_bm25 (okapi) and Lucene's formula written out (lucene)."""

import itertools
import math

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from evidence.retrieval.analyzer import get_analyzer
from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.smallfloat import byte4_to_int, int_to_byte4

analyze = get_analyzer("lucene")


@pytest.fixture(scope="module")
def queries(scifact_claims: list[str]) -> list[list[str]]:
    return [analyze(c) for c in scifact_claims] + [["cell", "cell", "protein"]]


@pytest.mark.parametrize(("k1", "b"), [(0.9, 0.4), (1.5, 0.75), (25.0, 1.0)])
def test_okapi_equals_rank_bm25(corpus, queries, k1: float, b: float) -> None:
    tokens, ids = corpus
    reference = BM25Okapi(tokens, k1=k1, b=b)
    index = BM25Index.build(tokens, ids, BM25Params(k1=k1, b=b, variant="okapi"))
    for q in queries:
        np.testing.assert_allclose(index.scores(q), reference.get_scores(q), rtol=1e-6, atol=1e-12)


def lucene_reference(tokens: list[list[str]], query: list[str], k1: float, b: float, lossy: bool) -> list[float]:
    """Score every document with Lucene's BM25 written out in plain Python (float64)."""
    n = sum(1 for t in tokens if t)
    avgdl = sum(len(t) for t in tokens) / n
    scores = []
    for doc in tokens:
        dl = byte4_to_int(int_to_byte4(len(doc))) if lossy else len(doc)
        total = 0.0
        for term in query:  # a repeated query term counts each time
            tf = doc.count(term)
            if tf:
                df = sum(1 for d in tokens if term in d)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))
        scores.append(total)
    return scores


@pytest.mark.parametrize("lossy", [False, True])
def test_lucene_equals_formula(corpus, queries, lossy: bool) -> None:
    tokens, ids = corpus
    tokens, ids = tokens[:150], ids[:150]  # the plain-Python reference is quadratic
    index = BM25Index.build(tokens, ids, BM25Params(k1=0.9, b=0.4, lossy_lengths=lossy))
    for q in [*queries[:20], queries[-1]]:
        # float32 per-term arithmetic, as Lucene does: 1e-6 relative
        np.testing.assert_allclose(index.scores(q), lucene_reference(tokens, q, 0.9, 0.4, lossy), rtol=1e-6)


def test_lossy_lengths_change_scores(corpus, queries) -> None:
    tokens, ids = corpus
    exact = BM25Index.build(tokens, ids, BM25Params())
    lossy = BM25Index.build(tokens, ids, BM25Params(lossy_lengths=True))
    assert not np.array_equal(exact.scores(queries[0]), lossy.scores(queries[0]))


# Values checked against Lucene 9.9.1's SmallFloat (value, byte, decoded length).
SMALLFLOAT = [(0, 0, 0), (1, 1, 1), (23, 23, 23), (24, 24, 24), (25, 25, 25), (40, 40, 40), (50, 45, 50),
              (100, 57, 96), (127, 60, 120), (128, 61, 128), (200, 67, 200), (255, 70, 248), (256, 70, 248),
              (1000, 87, 984), (10000, 113, 9240), (123456, 143, 122904)]


@pytest.mark.parametrize(("value", "byte", "decoded"), SMALLFLOAT)
def test_smallfloat_matches_lucene(value: int, byte: int, decoded: int) -> None:
    assert int_to_byte4(value) == byte
    assert byte4_to_int(byte) == decoded


def test_smallfloat_round_trip_is_monotone_and_exact_below_40() -> None:
    decoded = [byte4_to_int(int_to_byte4(i)) for i in range(100_000)]
    assert decoded[:41] == list(range(41))
    assert all(a <= b for a, b in itertools.pairwise(decoded))
    assert all(d <= i for i, d in enumerate(decoded))  # rounds down
    assert [int_to_byte4(byte4_to_int(b)) for b in range(256)] == list(range(256))
    assert byte4_to_int(int_to_byte4(2**31 - 1)) <= 2**31 - 1
