"""P(the reader's answer is right) from the model's own token probabilities, its agreement with the extractive
pick and the evidence's strength: a logistic calibration fitted out of fold by paper on real labelled questions
(bench/reader/fit.py), pinned by SHA-256 like the answer layer's files."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

PARAMS = Path(__file__).resolve().parent / "params"
CALIBRATION = "reader_confidence.json"
SHOW_AT = 0.5  # before a calibration is fitted


class CalibrationRefused(RuntimeError):
    """The calibration file's SHA-256 is not the one its manifest pins."""


@dataclass(frozen=True)
class Calibration:
    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float
    meta: dict[str, Any]

    def probability(self, row: dict[str, float]) -> float:
        terms = zip(self.features, self.mean, self.scale, self.coef, strict=True)
        z = self.intercept + sum(c * (row.get(f, 0.0) - m) / s for f, m, s, c in terms)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@cache
def calibration(name: str = CALIBRATION) -> Calibration | None:
    """Return the fitted calibration, None before one is fitted; a file its manifest does not pin is refused."""
    path = PARAMS / name
    if not path.is_file():
        return None
    pinned = dict(
        reversed(line.split(None, 1)) for line in (PARAMS / "SHA256SUMS").read_text().splitlines() if line.strip()
    )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if pinned.get(name, "").strip() != digest:
        raise CalibrationRefused(f"{path} does not match params/SHA256SUMS: refused")
    data = json.loads(path.read_text())
    return Calibration(
        data["features"], data["mean"], data["scale"], data["coef"], float(data["intercept"]),
        float(data["threshold"]), data.get("meta", {}),
    )  # fmt: skip


def prior(row: dict[str, float]) -> float:
    """The model's own belief in its answer: its mean token probability, discounted by the "not stated" alternative."""
    return math.exp(row["answer_mean_lp"]) * (1.0 - row["p_not_stated"])


def with_derived(row: dict[str, float]) -> dict[str, float]:
    """The row with the inputs computed from others (the prior's log-odds)."""
    p = min(max(prior(row), 1e-4), 1 - 1e-4)
    return {**row, "prior_logit": math.log(p / (1 - p))}


def p_right(row: dict[str, float]) -> tuple[float, float]:
    """Return (P(right), the threshold to show the answer); before a calibration is fitted, the prior itself."""
    model = calibration()
    if model is None:
        return prior(row), SHOW_AT
    return model.probability(with_derived(row)), model.threshold


def token_f1(a: str, b: str) -> float:
    """Token F1 between two short answers (agreement of the reader with the extractive pick)."""
    ta, tb = re.findall(r"\w+", a.lower()), re.findall(r"\w+", b.lower())
    if not ta or not tb:
        return 0.0
    common = sum(min(ta.count(t), tb.count(t)) for t in set(ta))
    if not common:
        return 0.0
    precision, recall = common / len(ta), common / len(tb)
    return 2 * precision * recall / (precision + recall)
