"""HybridBM25: document and passage rankings fused per JevGPT eq. 5."""

import pytest

from evidence.retrieval.analyzer import get_analyzer
from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.fusion import hybrid_scores
from evidence.retrieval.hybrid import DOC_PARAMS, PASSAGE_PARAMS, HybridBM25

analyze = get_analyzer("lucene")
DOCS = {
    "d1": ["Insulin resistance in muscle.", "Exercise improves insulin sensitivity in muscle.", "Diet matters."],
    "d2": ["Tumour growth and angiogenesis.", "VEGF drives angiogenesis in tumours."],
    "d3": ["Insulin signalling in the liver."],
    "d4": ["Unrelated text about birds."],
}


@pytest.fixture()
def hybrid() -> HybridBM25:
    doc_ids = list(DOCS)
    doc_index = BM25Index.build([analyze(" ".join(p)) for p in DOCS.values()], doc_ids, DOC_PARAMS)
    units = [(d, i, p) for d, ps in DOCS.items() for i, p in enumerate(ps)]
    passage_index = BM25Index.build([analyze(p) for _, _, p in units], [f"{d}#{i}" for d, i, _ in units],
                                    PASSAGE_PARAMS)
    return HybridBM25(doc_index, passage_index, [d for d, _, _ in units], [i for _, i, _ in units])


def test_it_fuses_document_and_best_passage_scores(hybrid: HybridBM25) -> None:
    q = analyze("insulin sensitivity in muscle")
    result = hybrid.search_detailed(q, depth=10)
    doc_scores = {hybrid.doc_index.ids[i]: s for i, s in hybrid.doc_index.top_k(q, 10)}
    passage_scores = hybrid.passage_index.scores(q)
    best = {}
    for i, s in enumerate(passage_scores):
        if s > 0:
            d = hybrid.passage_docids[i]
            best[d] = max(best.get(d, 0.0), float(s))
    expected = hybrid_scores(doc_scores, best)
    assert {h.docid: h.score for h in result.hits} == pytest.approx(expected)
    assert [h.docid for h in result.hits] == ["d1", "d3"]
    assert result.hits[0].passage == 1  # "Exercise improves insulin sensitivity in muscle."
    assert [o for o, _ in result.passages["d1"]] == [1, 0]  # at most two, best first
    assert result.passages["d3"] == [(0, pytest.approx(float(max(passage_scores[5:6]))))]


def test_search_returns_hits_and_respects_depth(hybrid: HybridBM25) -> None:
    q = analyze("insulin angiogenesis")
    assert len(hybrid.search(q, depth=10)) == 3
    assert len(hybrid.search(q, depth=1)) == 1
    assert hybrid.search(analyze("the of"), depth=10) == []


def test_default_parameters_follow_the_spec() -> None:
    assert (DOC_PARAMS.k1, DOC_PARAMS.b, PASSAGE_PARAMS.k1, PASSAGE_PARAMS.b) == (25.0, 1.0, 0.9, 0.4)


def test_passage_mapping_must_match_index() -> None:
    index = BM25Index.build([["a"]], ["p"], BM25Params())
    with pytest.raises(ValueError, match="one entry per passage"):
        HybridBM25(index, index, ["d", "e"], [0, 1])
