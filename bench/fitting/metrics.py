"""The few metrics the judge's fit and quality reports need (nDCG, set F1, calibration)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from evidence.eval.metrics import ndcg_at_k


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    """Return binary-gain nDCG@k of a ranked id list (0 when nothing is relevant): the evaluator's nDCG."""
    return ndcg_at_k(ranked, dict.fromkeys(relevant, 1.0), k)


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Return the share of relevant ids in the top k."""
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def prf(predicted: Iterable[object], gold: Iterable[object]) -> dict[str, float]:
    """Return micro precision, recall and F1 of two sets of items."""
    p, g = set(predicted), set(gold)
    hit = len(p & g)
    precision = hit / len(p) if p else 0.0
    recall = hit / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def set_f1(predicted: set[object], gold: set[object]) -> float:
    """Return F1 of one prediction set (empty vs empty is 1, as QASPER scores it)."""
    if not predicted and not gold:
        return 1.0
    return prf(predicted, gold)["f1"]


def reliability(probs: np.ndarray, labels: np.ndarray, bins: int = 10) -> tuple[list[dict[str, float]], float]:
    """Return a reliability table over equal-width bins and the expected calibration error."""
    probs, labels = np.asarray(probs, dtype=float), np.asarray(labels, dtype=float)
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(probs, edges[1:-1]), 0, bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        mask = which == b
        n = int(mask.sum())
        if not n:
            continue
        conf, acc = float(probs[mask].mean()), float(labels[mask].mean())
        ece += n / len(probs) * abs(conf - acc)
        table.append(
            {"bin": f"{edges[b]:.1f}-{edges[b + 1]:.1f}", "n": n, "mean_p": round(conf, 3), "observed": round(acc, 3)}
        )
    return table, round(ece, 4)
