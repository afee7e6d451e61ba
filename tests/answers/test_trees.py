"""The answer layer's fitted files: evaluated exactly as LightGBM does, refused when their hash does not match."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evidence.answers import layer, trees
from evidence.answers.ranker_rows import feature_names


def test_flattened_trees_score_like_lightgbm(tmp_path):
    lightgbm = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 6))
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] > 0).astype(float)
    booster = lightgbm.train({"objective": "binary", "verbose": -1, "num_leaves": 7}, lightgbm.Dataset(x, y), 30)
    data = {
        "name": "toy",
        "kind": "trees",
        "features": list("abcdef"),
        "trees": trees.flatten_lightgbm(booster.dump_model()),
    }
    trees.save(data, tmp_path)
    trees.load.cache_clear()
    model = trees.load("toy", tmp_path)
    probe = rng.normal(size=(50, 6))
    assert np.allclose(model.probability(probe), booster.predict(probe), atol=1e-9)


def test_a_model_file_whose_hash_differs_from_the_manifest_is_refused(tmp_path):
    data = {"name": "tiny", "kind": "logistic", "features": ["a"], "mean": [0.0], "scale": [1.0], "coef": [2.0]}
    path = trees.save(data, tmp_path)
    trees.load.cache_clear()
    assert trees.load("tiny", tmp_path) is not None
    path.write_text(json.dumps({**data, "coef": [-2.0]}))
    trees.load.cache_clear()
    with pytest.raises(trees.ModelFileRefused):
        trees.load("tiny", tmp_path)
    trees.load.cache_clear()


def test_the_shipped_ranker_and_confidence_match_their_manifest_and_the_features():
    sums = trees.manifest()
    for name in (layer.RANKER, layer.CONFIDENCE):
        assert f"{name}.json" in sums, f"{name}.json is not in {trees.PARAMS_DIR / trees.MANIFEST}"
        assert trees.file_sha256(trees.PARAMS_DIR / f"{name}.json") == sums[f"{name}.json"]
    ranker = trees.load(layer.RANKER)
    assert ranker is not None and ranker.features == feature_names()
    confidence = trees.load(layer.CONFIDENCE)
    assert confidence is not None and 0.0 < confidence.meta["threshold"] < 1.0
