"""HotpotQA metrics by hand and on a real dev question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence.eval.metrics_hotpot import (
    answer_scores,
    exact_match,
    gold_supporting_facts,
    hotpot_question_scores,
    hotpot_summary,
    supporting_fact_scores,
)


def test_exact_match_normalises() -> None:
    assert exact_match("The Eiffel Tower.", "eiffel tower") == 1.0
    assert exact_match("Eiffel", "eiffel tower") == 0.0


def test_yes_no_get_no_partial_credit() -> None:
    assert answer_scores("yes", "yes")["f1"] == 1.0
    assert answer_scores("yes it is", "yes") == {"em": 0.0, "f1": 0.0, "precision": 0.0, "recall": 0.0}
    assert answer_scores("no", "no way")["f1"] == 0.0
    assert answer_scores("noanswer", "answer")["f1"] == 0.0


def test_answer_f1_by_hand() -> None:
    # pred: [barack, obama, jr], gold: [barack, obama] -> P 2/3, R 1, F1 0.8
    scores = answer_scores("Barack Obama Jr.", "Barack Obama")
    assert (scores["precision"], scores["recall"], scores["f1"]) == pytest.approx((2 / 3, 1.0, 0.8))


def test_supporting_facts_by_hand() -> None:
    gold = [("A", 0), ("B", 1)]
    scores = supporting_fact_scores([["A", 0], ["A", 1], ["C", 0]], gold)
    assert (scores["precision"], scores["recall"], scores["em"]) == pytest.approx((1 / 3, 1 / 2, 0.0))
    assert scores["f1"] == pytest.approx(0.4)
    assert supporting_fact_scores([("B", 1), ("A", 0)], gold)["em"] == 1.0
    # Official script: empty vs empty gives P = R = F1 = 0 but EM = 1.
    assert supporting_fact_scores([], []) == {"em": 1.0, "f1": 0.0, "precision": 0.0, "recall": 0.0}


def test_joint_metrics_multiply_precision_and_recall() -> None:
    scores = hotpot_question_scores("Barack Obama Jr.", [("A", 0), ("A", 1)], "Barack Obama", [("A", 0)])
    joint_p, joint_r = (2 / 3) * (1 / 2), 1.0 * 1.0
    assert scores["joint_precision"] == pytest.approx(joint_p)
    assert scores["joint_recall"] == pytest.approx(joint_r)
    assert scores["joint_f1"] == pytest.approx(2 * joint_p * joint_r / (joint_p + joint_r))
    assert scores["joint_em"] == 0.0


def test_missing_predictions_score_zero_and_count_in_the_mean() -> None:
    perfect = hotpot_question_scores("yes", [("A", 0)], "yes", [("A", 0)])
    missing = hotpot_question_scores(None, None, "yes", [("A", 0)])
    assert all(v == 0.0 for v in missing.values())
    summary = hotpot_summary([perfect, missing])
    assert summary["em"] == 0.5 and summary["sp_f1"] == 0.5 and summary["joint_f1"] == 0.5


def test_gold_on_the_real_dev_sample_scores_one(shared_data: Path) -> None:
    examples = json.loads((shared_data / "hotpotqa" / "hotpot-dev-distractor-30.json").read_text())
    per_question = [
        hotpot_question_scores(ex["answer"], gold_supporting_facts(ex), ex["answer"], gold_supporting_facts(ex))
        for ex in examples
    ]
    summary = hotpot_summary(per_question)
    assert summary["em"] == summary["f1"] == summary["sp_f1"] == summary["joint_em"] == 1.0
    assert gold_supporting_facts(examples[0]) == [("Scott Derrickson", 0), ("Ed Wood", 0)]
    assert gold_supporting_facts({"supporting_facts": [["T", 2]]}) == [("T", 2)]
