"""SciFact sentence-level rationale selection, by hand and on the real training claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence.eval.metrics_scifact import claim_rationale_counts, rationale_selection_prf

# doc 11 has two rationales {0, 1} and {4}; doc 15 has {3}: 4 relevant sentences.
EVIDENCE = {
    "11": [{"label": "SUPPORT", "sentences": [0, 1]}, {"label": "SUPPORT", "sentences": [4]}],
    "15": [{"label": "SUPPORT", "sentences": [3]}],
}


def test_a_sentence_counts_only_with_its_whole_rationale() -> None:
    # 0 without 1: no credit; 4 alone: credit; 7 in doc 11: wrong; doc 99 is not evidence.
    predicted = [(11, 0), (11, 4), (11, 7), (99, 3)]
    assert claim_rationale_counts(predicted, EVIDENCE) == (1, 4, 4)
    assert claim_rationale_counts(predicted, EVIDENCE, require_full_rationale=False) == (2, 4, 4)
    assert claim_rationale_counts([("11", 0), ("11", 1), ("15", 3)], EVIDENCE) == (3, 3, 4)


def test_micro_average_sums_counts_across_claims() -> None:
    claims = [EVIDENCE, {}, {"5": [{"label": "CONTRADICT", "sentences": [2]}]}]
    predictions = [[("11", 4)], [("8", 0), ("8", 1)], [("5", 2)]]
    # correct 1 + 0 + 1 = 2; retrieved 1 + 2 + 1 = 4; relevant 4 + 0 + 1 = 5
    prf = rationale_selection_prf(predictions, claims)
    assert (prf.precision, prf.recall) == pytest.approx((2 / 4, 2 / 5))
    assert prf.f1 == pytest.approx(2 * 0.5 * 0.4 / 0.9)
    assert rationale_selection_prf([[]], [{}]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        rationale_selection_prf([[]], [])


def test_gold_rationales_score_one_on_the_training_claims(shared_data: Path) -> None:
    claims = json.loads((shared_data / "scifact" / "claims_train.json").read_text())
    predictions = [
        [(doc, s) for doc, entries in c["evidence"].items() for e in entries for s in e["sentences"]] for c in claims
    ]
    assert rationale_selection_prf(predictions, [c["evidence"] for c in claims]) == (1.0, 1.0, 1.0)
