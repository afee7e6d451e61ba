"""QASPER answer/evidence F1 against the official schema fixture and hand-computed cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence.eval.metrics_qasper import (
    get_answers_and_evidence,
    paragraph_f1_score,
    qasper_question_scores,
    qasper_summary,
    reference_from_answer,
    token_f1_score,
)


@pytest.fixture(scope="module")
def schema_fixture(shared_data: Path) -> dict:
    return json.loads((shared_data / "qasper" / "qasper-schema-fixture.json").read_text())


@pytest.fixture(scope="module")
def fixture_qas(schema_fixture: dict) -> list[dict]:
    return [qa for paper in schema_fixture.values() for qa in paper["qas"]]


def refs(qa: dict) -> list:
    return [reference_from_answer(a["answer"]) for a in qa["answers"]]


def test_references_follow_the_official_mapping(fixture_qas: list[dict]) -> None:
    seed, yes, unanswerable, extractive = (refs(qa) for qa in fixture_qas)
    assert seed == [
        {"answer": "a vocabulary", "evidence": ["Method paragraph using seed lexicon"], "type": "abstractive"},
        {"answer": "using seed lexicon", "evidence": ["Method paragraph using seed lexicon"], "type": "extractive"},
    ]
    assert yes == [{"answer": "Yes", "evidence": ["Method paragraph using seed lexicon"], "type": "boolean"}]
    # Unanswerable drops the annotator's evidence, as the official script does.
    assert unanswerable == [{"answer": "Unanswerable", "evidence": [], "type": "none"}]
    assert extractive[0]["answer"] == "Conclusion paragraph"


def test_reference_mapping_edge_cases() -> None:
    base = {"unanswerable": False, "extractive_spans": [], "yes_no": None, "free_form_answer": "", "evidence": []}
    assert reference_from_answer({**base, "yes_no": False})["answer"] == "No"
    assert reference_from_answer({**base, "extractive_spans": ["x", "y z"]})["answer"] == "x, y z"
    floats = {**base, "free_form_answer": "f", "evidence": ["FLOAT SELECTED: Table 1", "text"]}
    assert reference_from_answer(floats)["evidence"] == ["text"]
    assert reference_from_answer(floats, text_evidence_only=False)["evidence"] == ["FLOAT SELECTED: Table 1", "text"]
    with pytest.raises(ValueError):
        reference_from_answer(base)


def test_get_answers_and_evidence_keys_by_question_id(schema_fixture: dict) -> None:
    gold = get_answers_and_evidence(schema_fixture)
    # The fixture reuses one question id, so later questions overwrite earlier ones (a dict, as upstream).
    assert list(gold) == ["753990d0b621d390ed58f20c4d9e4f065f0dc672"]


def test_predicting_the_gold_answer_scores_one(fixture_qas: list[dict]) -> None:
    seed_refs = refs(fixture_qas[0])
    scores = qasper_question_scores("using seed lexicon", ["Method paragraph using seed lexicon"], seed_refs)
    assert scores == {"answer_f1": 1.0, "evidence_f1": 1.0, "answer_type": "extractive", "missing": False}


def test_unanswerable_gold(fixture_qas: list[dict]) -> None:
    unanswerable = refs(fixture_qas[2])
    # An empty answer shares no token with "Unanswerable": answer F1 0; empty evidence vs empty: 1.
    assert qasper_question_scores("", [], unanswerable) == {
        "answer_f1": 0.0,
        "evidence_f1": 1.0,
        "answer_type": "none",
        "missing": False,
    }
    assert qasper_question_scores("Unanswerable", [], unanswerable)["answer_f1"] == 1.0
    assert qasper_question_scores("unanswerable.", ["p"], unanswerable)["evidence_f1"] == 0.0


def test_answer_and_evidence_maxima_are_independent() -> None:
    references = [
        {"answer": "red apples", "evidence": ["p1"], "type": "abstractive"},
        {"answer": "green pears", "evidence": ["p2"], "type": "extractive"},
    ]
    scores = qasper_question_scores("red apples", ["p2"], references)
    assert scores["answer_f1"] == 1.0 and scores["answer_type"] == "abstractive"
    assert scores["evidence_f1"] == 1.0  # from the other reference


def test_ties_take_the_first_reference_type() -> None:
    references = [
        {"answer": "cats", "evidence": [], "type": "abstractive"},
        {"answer": "cats", "evidence": [], "type": "extractive"},
    ]
    assert qasper_question_scores("dogs", [], references)["answer_type"] == "abstractive"


def test_token_f1_by_hand() -> None:
    # pred tokens: bert, base, model; gold: bert, large -> 1 common, P 1/3, R 1/2, F1 0.4
    assert token_f1_score("The BERT base model", "BERT large") == pytest.approx(0.4)
    # Punctuation is deleted, not spaced: "BERT-base" becomes one token "bertbase".
    assert token_f1_score("BERT-base model", "BERT large") == 0.0


def test_paragraph_f1_by_hand() -> None:
    assert paragraph_f1_score([], []) == 1.0
    assert paragraph_f1_score(["a"], []) == 0.0
    assert paragraph_f1_score([], ["a"]) == 0.0
    # P = 1/2, R = 1/3 -> F1 = 0.4
    assert paragraph_f1_score(["a", "x"], ["a", "b", "c"]) == pytest.approx(0.4)


def test_summary_averages_and_splits_by_type() -> None:
    per_question = [
        {"answer_f1": 1.0, "evidence_f1": 0.5, "answer_type": "extractive", "missing": False},
        {"answer_f1": 0.5, "evidence_f1": 1.0, "answer_type": "extractive", "missing": False},
        {"answer_f1": 0.0, "evidence_f1": 1.0, "answer_type": "none", "missing": False},
        qasper_question_scores(None, [], []),
    ]
    summary = qasper_summary(per_question)
    assert summary["answer_f1"] == pytest.approx(1.5 / 4)
    assert summary["evidence_f1"] == pytest.approx(2.5 / 4)
    assert summary["answer_f1_by_type"] == {"extractive": 0.75, "abstractive": 0.0, "boolean": 0.0, "none": 0.0}
    assert summary["missing"] == 1 and summary["questions"] == 4
    assert qasper_summary([])["answer_f1"] == 0.0


def test_a_run_gives_qasper_its_shown_short_answer_unanswerable_when_not_found_and_nothing_when_withheld():
    from evidence.eval.metrics_qasper import qasper_prediction

    assert qasper_prediction("short_answer", "BLEU") == "BLEU"
    assert qasper_prediction("not_found", "") == "Unanswerable"  # scored against QASPER's "Unanswerable"
    assert qasper_prediction("no_short_answer", "") == ""  # the page's "No short answer found" is not an answer
    assert qasper_prediction("none", "") == ""
