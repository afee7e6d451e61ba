"""BM25Index behaviour: incremental add, persistence, top-k order, awkward queries."""

from pathlib import Path

import numpy as np
import pytest

from evidence.retrieval.analyzer import get_analyzer
from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.topk import select_top_k

analyze = get_analyzer("lucene")
PARAMS = [BM25Params(), BM25Params(lossy_lengths=True), BM25Params(k1=1.2, b=0.75, variant="okapi")]


@pytest.fixture(scope="module")
def queries(scifact_claims: list[str]) -> list[list[str]]:
    return [analyze(c) for c in scifact_claims[:20]]


@pytest.mark.parametrize("params", PARAMS)
def test_incremental_add_equals_rebuild(corpus, queries, params: BM25Params) -> None:
    tokens, ids = corpus
    full = BM25Index.build(tokens, ids, params)
    grown = BM25Index.build(tokens[:100], ids[:100], params)
    grown.add(tokens[100:250], ids[100:250])
    grown.add([], [])
    grown.add(tokens[250:], ids[250:])
    assert grown.ids == full.ids and grown.vocab == full.vocab
    for q in queries:
        assert np.array_equal(grown.scores(q), full.scores(q))


@pytest.mark.parametrize("params", PARAMS)
def test_extending_by_segments_equals_rebuild(corpus, queries, params: BM25Params) -> None:
    tokens, ids = corpus
    full = BM25Index.build(tokens, ids, params)
    grown = BM25Index.build(tokens[:100], ids[:100], params)
    for start, end in ((100, 101), (101, 101), (101, 250), (250, len(ids))):
        segment = BM25Index.build(tokens[start:end], ids[start:end], params)
        grown.extend(BM25Index.from_arrays(*segment.to_arrays()))
    assert grown.ids == full.ids and grown.vocab == full.vocab
    assert np.array_equal(grown.lengths, full.lengths)
    for q in queries:
        assert np.array_equal(grown.scores(q), full.scores(q))
        assert grown.top_k(q, 50) == full.top_k(q, 50)


@pytest.mark.parametrize("params", PARAMS)
def test_save_load_round_trip(tmp_path: Path, corpus, queries, params: BM25Params) -> None:
    tokens, ids = corpus
    index = BM25Index.build(tokens, ids, params)
    index.save(tmp_path / "idx")
    index.save(tmp_path / "idx")  # overwriting an existing index is fine
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]  # no temp dirs left behind
    for mmap in (True, False):
        loaded = BM25Index.load(tmp_path / "idx", mmap=mmap)
        assert loaded.params == params and loaded.ids == ids and len(loaded) == len(index)
        for q in queries:
            assert np.array_equal(loaded.scores(q), index.scores(q))
    loaded = BM25Index.load(tmp_path / "idx")
    loaded.add([["zzqnew", "cell"]], ["new-doc"])  # a memory-mapped index still grows
    assert [i for i, _ in loaded.top_k(["zzqnew"], 5)] == [len(ids)]


def test_top_k_orders_by_score_then_index() -> None:
    scores = np.array([0.0, 2.0, 1.0, 2.0, -1.0, 1.0, 3.0, 1.0])
    assert select_top_k(scores, 3) == [(6, 3.0), (1, 2.0), (3, 2.0)]
    assert select_top_k(scores, 5) == [(6, 3.0), (1, 2.0), (3, 2.0), (2, 1.0), (5, 1.0)]
    assert select_top_k(scores, 100) == [(6, 3.0), (1, 2.0), (3, 2.0), (2, 1.0), (5, 1.0), (7, 1.0)]
    assert select_top_k(scores, 0) == []
    assert select_top_k(np.zeros(4), 2) == []


def test_top_k_agrees_with_full_sort(corpus, queries) -> None:
    tokens, ids = corpus
    index = BM25Index.build(tokens, ids, BM25Params())
    for q in queries:
        s = index.scores(q)
        expected = [(int(i), float(s[i])) for i in sorted(np.flatnonzero(s > 0), key=lambda i: (-s[i], i))]
        assert index.top_k(q, 10) == expected[:10]
        assert index.top_k(q, 1000) == expected


def test_repeated_query_terms_count_each_time() -> None:
    index = BM25Index.build([["a", "b"], ["b", "c"], ["c", "d"]], ["x", "y", "z"], BM25Params())
    once, twice = index.scores(["c"]), index.scores(["c", "c"])
    assert np.allclose(twice, 2 * once) and once[1] > 0


@pytest.mark.parametrize("params", PARAMS)
def test_awkward_queries_score_zero(corpus, params: BM25Params) -> None:
    tokens, ids = corpus
    index = BM25Index.build(tokens, ids, params)
    for query in ([], analyze("the of and"), ["zzzunknownzzz"], analyze("naïve Ωmega 中文 😀")):
        assert index.scores(query).shape == (len(ids),)
        assert index.top_k(query, 10) == [] or query == analyze("naïve Ωmega 中文 😀")


def test_non_ascii_terms_are_searchable() -> None:
    docs = ["naïve Bayes", "Σίσυφος myth", "中文 文本", "plain text"]
    index = BM25Index.build([analyze(d) for d in docs], ["a", "b", "c", "d"], BM25Params())
    assert [index.ids[i] for i, _ in index.top_k(analyze("naïve"), 5)] == ["a"]
    assert [index.ids[i] for i, _ in index.top_k(analyze("Σίσυφος"), 5)] == ["b"]
    assert analyze("ΣΊΣΥΦΟΣ") == ["σίσυφοσ"]  # Java lower-cases letter by letter: no final sigma
    assert [index.ids[i] for i, _ in index.top_k(analyze("文"), 5)] == ["c"]


def test_empty_units_and_bad_input() -> None:
    index = BM25Index.build([[], ["a"]], ["empty", "full"], BM25Params())
    assert index.top_k(["a"], 5)[0][0] == 1
    with pytest.raises(ValueError, match="2 token lists but 1 ids"):
        BM25Index.build([["a"], ["b"]], ["x"], BM25Params())
    with pytest.raises(ValueError, match="lucene, okapi"):
        BM25Params(variant="tfidf")
