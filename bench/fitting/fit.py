"""Fit the local judge's heads (scikit-learn / LightGBM at fit time only; inference is numpy)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evidence.judge.heads import Head


def _folds(groups: np.ndarray, k: int = 5) -> list[np.ndarray]:
    """Return k test-index arrays that keep each group (claim, question) in one fold, deterministically."""
    uniq = np.unique(groups)
    fold_of = {g: i % k for i, g in enumerate(uniq)}
    which = np.array([fold_of[g] for g in groups])
    return [np.flatnonzero(which == f) for f in range(k)]


def _test_folds(groups: np.ndarray, clusters: np.ndarray | None) -> list[np.ndarray]:
    """Return the CV test folds: by cluster when given (rows of one cluster stay together), else by group."""
    return _folds(groups if clusters is None else clusters)


def _platt(raw: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Fit sigmoid(a * raw + b) to labels by logistic regression on one feature."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1e4, max_iter=1000).fit(raw.reshape(-1, 1), y)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


def _fit_logistic(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Return (mean, scale, coef, intercept) of a standardised L2 logistic regression."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    return mean, scale, model.coef_[0], float(model.intercept_[0])


# Tree shapes: "small" by default. SPEC 11's 15 leaves / 20 rows ("wide") memorised abstracts that neighbouring
# claims cite (claim-grouped CV 0.79 nDCG@10, cluster-grouped 0.74); 7 leaves / 50 rows held up better there.
# A kind "<objective>_wide" (e.g. "binary_wide") fits the wide shape, for comparison by cluster-grouped CV.
SHAPES = {"small": (7, 50), "wide": (15, 20)}


def _lgbm_params(objective: str, shape: str = "small") -> dict[str, object]:
    leaves, min_rows = SHAPES[shape]
    return {
        "objective": objective,
        "n_estimators": 300,
        "learning_rate": 0.03,
        "num_leaves": leaves,
        "min_child_samples": min_rows,
        "subsample": 0.8,
        "subsample_freq": 1,
        "colsample_bytree": 0.8,
        "random_state": 0,
        "verbose": -1,
        "n_jobs": 2,
        "deterministic": True,
        "force_row_wise": True,
    }


def _fit_raw(kind: str, x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> Head:
    """Fit an uncalibrated head of one kind on all rows."""
    if kind == "logistic":
        mean, scale, coef, intercept = _fit_logistic(x, y, c)
        return Head("", [], "logistic", mean.tolist(), scale.tolist(), coef.tolist(), intercept)
    import lightgbm

    objective, _, shape = kind.partition("_")
    if objective == "lambdarank":
        order = np.argsort(groups, kind="stable")
        x, y, groups = x[order], y[order], groups[order]
        _, sizes = np.unique(groups, return_counts=True)
        model = lightgbm.LGBMRanker(**_lgbm_params("lambdarank", shape or "small")).fit(x, y.astype(int), group=sizes)
    else:
        model = lightgbm.LGBMClassifier(**_lgbm_params("binary", shape or "small")).fit(x, y)
    return Head("", [], "lightgbm", model=model.booster_.model_to_string())


def fit_head(
    name: str,
    features: Sequence[str],
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    kind: str = "logistic",
    c: float = 1.0,
    meta: dict[str, object] | None = None,
    clusters: np.ndarray | None = None,
) -> tuple[Head, np.ndarray]:
    """Fit a head on all rows and calibrate it on 5-fold grouped out-of-fold scores; return (head, oof probs).

    ``clusters`` (optional, one id per row) groups the CV folds more coarsely than ``groups``: SciFact
    claims that cite the same abstract share a cluster, so no fold is scored on an abstract it saw.
    """
    oof_raw = np.zeros(len(y))
    for test in _test_folds(groups, clusters):
        train = np.setdiff1d(np.arange(len(y)), test)
        oof_raw[test] = _fit_raw(kind, x[train], y[train], groups[train], c).raw(x[test])
    a, b = _platt(oof_raw, y)
    head = _fit_raw(kind, x, y, groups, c)
    head.name, head.features, head.platt = name, list(features), (a, b)
    head.meta = {"rows": len(y), "positives": int(y.sum()), "groups": len(np.unique(groups)), **(meta or {})}
    oof = 1.0 / (1.0 + np.exp(-(a * oof_raw + b)))
    return head, oof


def oof_predictions(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    kind: str = "logistic",
    c: float = 1.0,
    clusters: np.ndarray | None = None,
) -> np.ndarray:
    """Return 5-fold grouped out-of-fold raw scores (for stacking a later stage without leakage)."""
    out = np.zeros(len(y))
    for test in _test_folds(groups, clusters):
        train = np.setdiff1d(np.arange(len(y)), test)
        out[test] = _fit_raw(kind, x[train], y[train], groups[train], c).raw(x[test])
    return out
