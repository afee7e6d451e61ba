"""Paired comparison statistics: percentile bootstrap on mean differences and an exact sign test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

_CHUNK = 1000  # resamples drawn at once: bounds memory at chunk x n indices


def _paired_differences(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} vs {len(b)}")
    if not a:
        raise ValueError("need at least one pair")
    return np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, seed: int = 0
) -> tuple[float, float, float]:
    """Return mean(b - a) and its 95% percentile bootstrap interval (lo, hi), resampling pairs."""
    diffs = _paired_differences(a, b)
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        means[start : start + size] = diffs[rng.integers(0, len(diffs), size=(size, len(diffs)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(diffs.mean()), float(lo), float(hi)


def sign_test_counts(wins: int, losses: int) -> float:
    """Return the exact two-sided binomial p-value (p = 1/2) of `wins` against `losses`."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1))
    # Doubling the smaller tail is the usual two-sided sign test; exact rational arithmetic, capped at 1.
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def sign_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Return the exact two-sided sign test p-value for paired scores; ties are dropped."""
    diffs = _paired_differences(a, b)
    return sign_test_counts(int((diffs > 0).sum()), int((diffs < 0).sum()))
