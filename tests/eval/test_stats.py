"""Bootstrap interval and exact sign test, checked by hand and against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from evidence.eval.stats import paired_bootstrap, sign_test, sign_test_counts


def test_sign_test_nine_wins_one_loss() -> None:
    # 2 * (C(10,0) + C(10,1)) / 2**10 = 22 / 1024
    assert sign_test_counts(9, 1) == 0.021484375
    assert sign_test([0.0] * 10, [1.0] * 9 + [-1.0]) == 0.021484375


def test_sign_test_drops_ties_and_handles_edges() -> None:
    assert sign_test([0, 0, 0, 5, 5], [1, 1, 1, 5, 5]) == 0.25  # 3 wins, 0 losses, 2 ties: 2 / 8
    assert sign_test_counts(0, 0) == 1.0
    assert sign_test_counts(5, 5) == 1.0
    assert sign_test_counts(1, 0) == 1.0


@pytest.mark.parametrize(("wins", "losses"), [(3, 7), (12, 2), (20, 20), (40, 25), (0, 15)])
def test_sign_test_agrees_with_scipy(wins: int, losses: int) -> None:
    expected = binomtest(wins, wins + losses, 0.5).pvalue
    assert sign_test_counts(wins, losses) == pytest.approx(expected, rel=1e-12)


def test_bootstrap_of_a_constant_difference_is_a_point() -> None:
    mean, lo, hi = paired_bootstrap([0.1, 0.2, 0.3], [0.35, 0.45, 0.55])
    assert mean == pytest.approx(0.25) and lo == pytest.approx(0.25) and hi == pytest.approx(0.25)


def test_bootstrap_interval_is_seeded_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(1)
    a = rng.random(200)
    b = a + 0.05 + rng.normal(0, 0.1, 200)
    first = paired_bootstrap(a.tolist(), b.tolist(), n_resamples=2000, seed=7)
    assert first == paired_bootstrap(a.tolist(), b.tolist(), n_resamples=2000, seed=7)
    mean, lo, hi = first
    assert mean == pytest.approx(float(np.mean(b - a)))
    assert lo < mean < hi
    # Normal theory: half-width ~ 1.96 * sd / sqrt(n) ~ 0.0139
    assert hi - lo == pytest.approx(2 * 1.96 * np.std(b - a) / np.sqrt(200), rel=0.15)


def test_bootstrap_by_hand_on_two_pairs() -> None:
    # diffs {0, 1}: resampled means are 0, 0.5, 1 with probability 1/4, 1/2, 1/4 -> 2.5% = 0, 97.5% = 1
    mean, lo, hi = paired_bootstrap([0, 0], [0, 1], n_resamples=4000)
    assert (mean, lo, hi) == (0.5, 0.0, 1.0)


def test_bootstrap_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        paired_bootstrap([], [])
