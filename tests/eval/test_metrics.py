"""Hand-computed checks of normalisation, set metrics and ranking metrics."""

from __future__ import annotations

import math

import pytest

from evidence.eval.metrics import (
    f1_at_k,
    ndcg_at_k,
    normalize_answer,
    precision_at_k,
    recall_at_k,
    set_prf,
    token_prf,
)


def test_normalize_answer_drops_case_punctuation_articles_and_spaces() -> None:
    assert normalize_answer("  The Cat, an owl & A dog!  ") == "cat owl dog"
    assert normalize_answer("theme another") == "theme another"  # articles only as whole words
    assert normalize_answer("") == ""


def test_token_prf_counts_repeated_tokens_once_per_match() -> None:
    # pred: [cat, cat, sat], ref: [cat, sat, on, mat] -> common = cat + sat = 2
    prf = token_prf("the cat cat sat", "A cat sat on the mat.")
    assert prf.precision == pytest.approx(2 / 3)
    assert prf.recall == pytest.approx(2 / 4)
    assert prf.f1 == pytest.approx(2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))  # 4/7


def test_token_prf_is_zero_without_overlap_even_for_two_empty_strings() -> None:
    assert token_prf("", "").f1 == 0.0
    assert token_prf("a the", "the").f1 == 0.0
    assert token_prf("dog", "cat").f1 == 0.0


def test_set_prf_conventions() -> None:
    assert set_prf([], []) == (1.0, 1.0, 1.0)
    assert set_prf([], ["a"]) == (0.0, 0.0, 0.0)
    assert set_prf(["a"], []) == (0.0, 0.0, 0.0)
    prf = set_prf(["a", "b", "c", "a"], ["a", "d"])
    assert (prf.precision, prf.recall, prf.f1) == pytest.approx((1 / 3, 1 / 2, 0.4))


def test_ndcg_binary_by_hand() -> None:
    # relevant d1, d3; ranking d1, d2, d3 -> DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3)
    value = ndcg_at_k(["d1", "d2", "d3"], {"d1": 1, "d3": 1}, k=10)
    assert value == pytest.approx(1.5 / (1 + 1 / math.log2(3)))


def test_ndcg_graded_gains_0_1_3_and_ideal_over_all_judged_docs() -> None:
    gains = {"a": 3, "b": 1, "c": 1, "d": 0, "e": 3}
    # ranking b, x(unjudged), a  -> DCG = 1/1 + 0 + 3/2 = 2.5
    # ideal over ALL judged docs: 3, 3, 1, 1 -> 3 + 3/log2(3) + 1/2 + 1/log2(5)
    idcg = 3 + 3 / math.log2(3) + 0.5 + 1 / math.log2(5)
    assert ndcg_at_k(["b", "x", "a"], gains, k=20) == pytest.approx(2.5 / idcg)
    # with k = 2 the ideal list is truncated too: 3 + 3/log2(3); DCG@2 = 1
    assert ndcg_at_k(["b", "x", "a"], gains, k=2) == pytest.approx(1 / (3 + 3 / math.log2(3)))


def test_ndcg_edge_cases() -> None:
    assert ndcg_at_k([], {"a": 1}, 10) == 0.0
    assert ndcg_at_k(["a"], {}, 10) == 0.0
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0
    assert ndcg_at_k(["a", "a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(
        (1 + 1 / math.log2(3)) / (1 + 1 / math.log2(3))
    )  # a repeated id is dropped, not rewarded twice
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a": 1}, 0)


def test_recall_and_precision_at_k() -> None:
    ranking = ["a", "b", "c", "d"]
    assert recall_at_k(ranking, {"a", "d", "z"}, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranking, {"a", "d", "z"}, 100) == pytest.approx(2 / 3)
    assert recall_at_k(ranking, set(), 10) == 0.0
    assert precision_at_k(ranking, {"a", "d"}, 10) == pytest.approx(0.2)  # denominator is k


def test_f1_at_20_has_fixed_precision_denominator() -> None:
    gains = {"a": 3, "b": 1, "c": 0, "d": 1}
    # 2 hits (a, b) in a 3-item list; relevant = a, b, d. P = 2/20, R = 2/3
    p, r = 2 / 20, 2 / 3
    assert f1_at_k(["a", "c", "b"], gains, 20) == pytest.approx(2 * p * r / (p + r))
    assert f1_at_k(["a", "c", "b"], gains, 20) == pytest.approx(2 * 2 / (20 + 3))
    assert f1_at_k([], gains, 20) == 0.0  # a failed task scores 0
    assert f1_at_k(["a"], {"a": 0}, 20) == 0.0
