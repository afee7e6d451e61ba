"""Fitted models of the answer layer, evaluated with numpy: a boosted tree ensemble or a logistic regression.

A model file is JSON written by bench/answers/fit.py; `evidence/answers/params/SHA256SUMS` pins each file's
SHA-256, and a file whose hash differs is refused at load (a model is never silently swapped).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

PARAMS_DIR = Path(__file__).resolve().parent / "params"
MANIFEST = "SHA256SUMS"


class ModelFileRefused(RuntimeError):
    """A model file is missing from the manifest or its hash does not match it."""


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=float)))


@dataclass(frozen=True)
class Trees:
    """A flattened tree ensemble: per node its feature (-1 for a leaf), threshold, children and leaf value."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray

    def raw(self, x: np.ndarray) -> np.ndarray:
        """Return the ensemble's summed leaf values per row of x."""
        total = np.zeros(len(x))
        rows = np.arange(len(x))
        for root in self.roots:
            node = np.full(len(x), root)
            while True:
                feature = self.feature[node]
                inner = feature >= 0
                if not inner.any():
                    break
                go_left = x[rows[inner], feature[inner]] <= self.threshold[node[inner]]
                node[inner] = np.where(go_left, self.left[node[inner]], self.right[node[inner]])
            total += self.value[node]
        return total


def flatten_lightgbm(dump: dict[str, Any]) -> dict[str, list[float] | list[int]]:
    """Return the arrays of Trees from LightGBM's dump_model() (numerical `<=` splits only)."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []

    def add(node: dict[str, Any]) -> int:
        index = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        value.append(float(node.get("leaf_value", 0.0)))
        if "split_feature" in node:
            if node.get("decision_type", "<=") != "<=":
                raise ValueError("only numerical <= splits are supported")
            feature[index] = int(node["split_feature"])
            threshold[index] = float(node["threshold"])
            left[index] = add(node["left_child"])
            right[index] = add(node["right_child"])
        return index

    for tree in dump["tree_info"]:
        roots.append(add(tree["tree_structure"]))
    return {"feature": feature, "threshold": threshold, "left": left, "right": right, "value": value, "roots": roots}


@dataclass(frozen=True)
class Model:
    """A fitted model: its input columns, a tree ensemble or logistic weights, and a Platt calibration."""

    name: str
    features: list[str]
    kind: str  # "trees" | "logistic"
    trees: Trees | None = None
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    coef: np.ndarray | None = None
    intercept: float = 0.0
    platt: tuple[float, float] = (1.0, 0.0)
    meta: dict[str, Any] = field(default_factory=dict)

    def raw(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0)
        if self.kind == "trees":
            assert self.trees is not None
            return self.trees.raw(x)
        assert self.mean is not None and self.scale is not None and self.coef is not None
        return ((x - self.mean) / self.scale) @ self.coef + self.intercept

    def probability(self, x: np.ndarray) -> np.ndarray:
        a, b = self.platt
        return sigmoid(a * self.raw(x) + b)

    def columns(self, x: np.ndarray, names: list[str]) -> np.ndarray:
        """Return the columns of x (named `names`) this model reads, in its order."""
        if names == self.features:
            return x
        index = {n: i for i, n in enumerate(names)}
        return x[:, [index[n] for n in self.features]]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(directory: Path = PARAMS_DIR) -> dict[str, str]:
    """Return {file name: SHA-256} from the params folder's manifest."""
    path = directory / MANIFEST
    if not path.exists():
        return {}
    pairs = (line.split() for line in path.read_text().splitlines() if line.strip())
    return {name: digest for digest, name in pairs}


def save(data: dict[str, Any], directory: Path = PARAMS_DIR) -> Path:
    """Write a model file and record its hash in the manifest (used by the fit script only)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{data['name']}.json"
    path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    sums = manifest(directory)
    sums[path.name] = file_sha256(path)
    (directory / MANIFEST).write_text("".join(f"{d}  {n}\n" for n, d in sorted(sums.items())))
    return path


@cache
def load(name: str, directory: Path = PARAMS_DIR) -> Model | None:
    """Return a model by name after checking its hash against the manifest; None when it was never fitted."""
    path = directory / f"{name}.json"
    if not path.exists():
        return None
    expected = manifest(directory).get(path.name)
    found = file_sha256(path)
    if expected != found:
        raise ModelFileRefused(f"{path} has SHA-256 {found}, the manifest says {expected}: refit or restore it.")
    data = json.loads(path.read_text(encoding="utf-8"))
    trees = None
    if data["kind"] == "trees":
        t = data["trees"]
        trees = Trees(
            np.asarray(t["feature"], dtype=np.int64),
            np.asarray(t["threshold"], dtype=float),
            np.asarray(t["left"], dtype=np.int64),
            np.asarray(t["right"], dtype=np.int64),
            np.asarray(t["value"], dtype=float),
            np.asarray(t["roots"], dtype=np.int64),
        )
    return Model(
        name=data["name"],
        features=list(data["features"]),
        kind=data["kind"],
        trees=trees,
        mean=None if "mean" not in data else np.asarray(data["mean"], dtype=float),
        scale=None if "scale" not in data else np.asarray(data["scale"], dtype=float),
        coef=None if "coef" not in data else np.asarray(data["coef"], dtype=float),
        intercept=float(data.get("intercept", 0.0)),
        platt=tuple(data.get("platt", (1.0, 0.0))),  # type: ignore[arg-type]
        meta=dict(data.get("meta", {})),
    )
