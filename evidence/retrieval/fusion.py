"""Score and rank fusion: pure functions over docid -> score maps and ranked docid lists."""

from collections.abc import Mapping, Sequence

import numpy as np


def minmax_array(x: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant (or single) set maps to zeros, as SPEC 3 says (the project's one min-max)."""
    if not len(x):
        return x
    lo, hi = float(x.min()), float(x.max())
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Scale a docid -> score map to [0, 1] with minmax_array."""
    if not scores:
        return {}
    scaled = minmax_array(np.fromiter(scores.values(), dtype=np.float64, count=len(scores)))
    return dict(zip(scores, scaled.tolist(), strict=True))


def hybrid_scores(
    doc_scores: Mapping[str, float], passage_max: Mapping[str, float], weight: float = 0.5
) -> dict[str, float]:
    """Fuse weight*minmax(doc) + (1-weight)*minmax(best passage) (JevGPT eq. 5); missing counts 0."""
    d, p = minmax(doc_scores), minmax(passage_max)
    return {docid: weight * d.get(docid, 0.0) + (1 - weight) * p.get(docid, 0.0) for docid in d | p}


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse rankings by sum of 1/(k + rank) (ranks from 1); ties by first appearance."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, docid in enumerate(ranking, start=1):
            if docid in seen:
                continue  # a docid repeated within one ranking counts at its best rank only
            seen.add(docid)
            fused[docid] = fused.get(docid, 0.0) + 1.0 / (k + rank)
    # sorted() is stable, so equal scores keep first-appearance order: deterministic output
    return sorted(fused.items(), key=lambda item: -item[1])
