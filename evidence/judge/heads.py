"""Calibrated scoring heads of the local judge: standardised logistic regression or a small LightGBM model.

A head file is JSON: feature names, standardisation, coefficients (or a LightGBM model string) and a
Platt calibration (a, b) applied as sigmoid(a * raw + b), fitted on out-of-fold predictions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

PARAMS_DIR = Path(__file__).resolve().parent / "params"


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Return the logistic function, safe for large magnitudes."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass
class Head:
    """One fitted head: raw score from features, then a Platt-calibrated probability."""

    name: str
    features: list[str]
    kind: str = "logistic"  # "logistic" | "lightgbm"
    mean: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)
    coef: list[float] = field(default_factory=list)
    intercept: float = 0.0
    platt: tuple[float, float] = (1.0, 0.0)
    model: str = ""  # LightGBM model string when kind == "lightgbm"
    meta: dict[str, Any] = field(default_factory=dict)

    def select(self, x: np.ndarray, names: Sequence[str]) -> np.ndarray:
        """Return the columns of x (named ``names``) this head reads, in its own order."""
        if list(names) == self.features:
            return x
        index = {n: i for i, n in enumerate(names)}
        return x[:, [index[n] for n in self.features]]

    def raw(self, x: np.ndarray) -> np.ndarray:
        """Return the uncalibrated score (a logit for logistic heads)."""
        if len(x) == 0:
            return np.zeros(0)
        if self.kind == "lightgbm":
            return _booster(self.model).predict(x, raw_score=True)
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return z @ np.asarray(self.coef) + self.intercept

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Return calibrated probabilities for the rows of x."""
        a, b = self.platt
        return sigmoid(a * self.raw(x) + b)

    def save(self, directory: Path = PARAMS_DIR) -> Path:
        """Write the head as <name>.json and return the path."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.name}.json"
        path.write_text(json.dumps(asdict(self), indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, name: str, directory: Path = PARAMS_DIR) -> Head:
        """Read a head written by save."""
        data = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        data["platt"] = tuple(data["platt"])
        return cls(**data)


@cache
def _booster(model: str) -> Any:
    """Return a LightGBM booster for a model string (parsed once per process)."""
    import lightgbm  # only needed by LightGBM heads

    return lightgbm.Booster(model_str=model)
