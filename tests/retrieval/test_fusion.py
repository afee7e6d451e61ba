"""Fusion tests on hand-computed cases."""

import pytest

from evidence.retrieval.fusion import hybrid_scores, minmax, reciprocal_rank_fusion


def test_minmax_scales_to_unit_interval() -> None:
    assert minmax({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}


def test_minmax_constant_and_empty() -> None:
    assert minmax({"a": 5.0, "b": 5.0}) == {"a": 0.0, "b": 0.0}
    assert minmax({"a": 7.0}) == {"a": 0.0}
    assert minmax({}) == {}


def test_hybrid_scores_missing_side_counts_zero() -> None:
    docs = {"a": 10.0, "b": 6.0, "c": 2.0}  # -> a 1, b 0.5, c 0
    passages = {"b": 3.0, "d": 1.0}  # -> b 1, d 0
    assert hybrid_scores(docs, passages) == {"a": 0.5, "b": 0.75, "c": 0.0, "d": 0.0}
    assert hybrid_scores(docs, passages, weight=0.8) == pytest.approx({"a": 0.8, "b": 0.6, "c": 0.0, "d": 0.0})


def test_hybrid_scores_constant_lists() -> None:
    assert hybrid_scores({"a": 1.0, "b": 1.0}, {"a": 2.0}) == {"a": 0.0, "b": 0.0}
    assert hybrid_scores({}, {}) == {}


def test_reciprocal_rank_fusion() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]], k=60)
    assert [d for d, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1][1] == pytest.approx(1 / 61)
    assert dict(fused)["d"] == pytest.approx(1 / 62) == dict(fused)["c"] * 63 / 62


def test_reciprocal_rank_fusion_ties_and_repeats() -> None:
    assert reciprocal_rank_fusion([["x"], ["y"]]) == [("x", 1 / 61), ("y", 1 / 61)]
    assert reciprocal_rank_fusion([["x", "x", "y"]], k=0) == [("x", 1.0), ("y", 1 / 3)]
    assert reciprocal_rank_fusion([]) == []
