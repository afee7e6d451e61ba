"""The top k of a score array without a full sort, ties broken by index: the same order a full sort gives."""

import numpy as np


def select_top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Return up to k (index, score) with score > 0, by score desc then index asc, without a full sort."""
    idx, vals = top_k_indices(scores, k)
    return list(zip(idx.tolist(), vals.astype(np.float64).tolist(), strict=True))


_SAMPLE_STRIDE = 16


def top_k_indices(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (indexes, scores) of the up to k units with score > 0, by score desc then index asc.

    A threshold from a strided sample (about twice k units expected at or above it) cuts the candidates to a
    few thousand in one pass; when fewer than k pass, every positive score is a candidate. Either way every unit
    tied with the k-th score is a candidate, so the result equals a full sort's.
    """
    if k <= 0 or not len(scores):
        return np.empty(0, dtype=np.int64), scores[:0]
    cand = None
    n = len(scores)
    if n > 8 * k * _SAMPLE_STRIDE // 2:
        sample = scores[::_SAMPLE_STRIDE]
        j = min(len(sample) - 1, 2 * k // _SAMPLE_STRIDE + 8)
        threshold = np.partition(sample, len(sample) - 1 - j)[len(sample) - 1 - j]
        if threshold > 0:
            cand = np.flatnonzero(scores >= threshold)
            if len(cand) < k:
                cand = None
    if cand is None:
        cand = np.flatnonzero(scores > 0)
    vals = scores[cand]
    if len(cand) > k:
        kth = vals[np.argpartition(-vals, k - 1)[k - 1]]
        keep = vals >= kth  # keeps every unit tied with the k-th so ties resolve by index below
        cand, vals = cand[keep], vals[keep]
    order = np.lexsort((cand, -vals))[:k]
    return cand[order].astype(np.int64), vals[order]
