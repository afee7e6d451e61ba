"""Cross-fitted heads: the manifest, heads_for, and fold heads that exist and load."""

from __future__ import annotations

import json

import pytest

from evidence.eval.folds import FOLDS_FILE, heads_for
from evidence.judge.heads import PARAMS_DIR, Head
from evidence.judge.local import LocalJudge

MANIFEST = json.loads((PARAMS_DIR / FOLDS_FILE).read_text(encoding="utf-8"))


def test_every_qasper_paper_and_hotpot_question_has_a_fold_head_that_loads() -> None:
    for benchmark in ("qasper", "hotpotqa"):
        for key in MANIFEST[benchmark]["folds"]:
            heads = heads_for(benchmark, key)
            assert heads and all((PARAMS_DIR / f"{name}.json").is_file() for name in heads.values())
            judge = LocalJudge(heads=heads)
            assert all(judge.head(name).name == name for name in heads.values())


def test_qasper_question_id_maps_to_its_papers_fold() -> None:
    qid, paper = next(iter(MANIFEST["qasper"]["questions"].items()))
    assert heads_for("qasper", qid) == heads_for("qasper", paper)
    assert heads_for("qasper", paper)["paragraph"] == f"paragraph_fold{MANIFEST['qasper']['folds'][paper]}"


def test_fold_heads_were_fitted_without_their_fold() -> None:
    for paper, k in MANIFEST["qasper"]["folds"].items():
        assert paper in Head.load(f"paragraph_fold{k}").meta["fitted_on"]
    hotpot = MANIFEST["hotpotqa"]["folds"]
    for k in set(hotpot.values()):
        head = Head.load(f"multihop_fold{k}")
        assert head.meta["unit_head"] == f"multihop_unit_fold{k}"
        assert head.meta["groups"] == len(hotpot) - sum(1 for f in hotpot.values() if f == k)


def test_unfitted_keys_get_the_defaults_and_unknown_benchmarks_raise() -> None:
    assert heads_for("scifact", "1234") == {}
    assert heads_for("hotpotqa", "not-a-question") == {}
    with pytest.raises(ValueError):
        heads_for("msmarco", "x")


def test_parameter_files_stay_small() -> None:
    sizes = [p.stat().st_size for p in PARAMS_DIR.glob("*.json")]
    assert max(sizes) < 1_000_000 and sum(sizes) < 5_000_000
