"""The section-aware paragraph scorer for questions about one paper (pure functions, no fitted parameters)."""

from __future__ import annotations

import numpy as np

from bench.fitting.paper_fit import calibration_head
from evidence.judge.features import terms
from evidence.judge.paper import (
    paragraph_scores,
    pick_paragraphs,
    query_weights,
    question_types,
    section_ids,
    section_prior,
)

PAPER = [
    ("Introduction", "Neural models of translation improve every year, and robustness matters to users."),
    ("Introduction", "We study how models behave when the input contains spelling mistakes."),
    ("Data", "We collected 20,000 reviews from an online forum and annotated each review for sentiment."),
    ("Data", "The corpus is split into training, development and test sets."),
    ("Results", "Our model reaches 91.2 accuracy and outperforms every baseline by two points."),
    ("Related Work", "Earlier work studied adversarial examples for image classifiers."),
]


def flat_label_vectors(n: int) -> np.ndarray:
    """Section-heading vectors orthogonal to the question (the heading cosine then adds nothing)."""
    vecs = np.zeros((n, 384), dtype=np.float32)
    vecs[:, 1] = 1.0
    return vecs


def question_vector() -> np.ndarray:
    vec = np.zeros(384, dtype=np.float32)
    vec[0] = 1.0
    return vec


def scores_for(question: str) -> np.ndarray:
    labels = [label for label, _ in PAPER]
    texts = [text for _, text in PAPER]
    return paragraph_scores(question, question_vector(), texts, labels, flat_label_vectors(len(PAPER)))


def test_question_types_follow_trigger_words():
    assert question_types("What metrics are used for evaluation?") == ["metric"]
    assert question_types("what dataset is used?") == ["data"]
    assert question_types("Why is the sky blue?") == []


def test_query_weights_drop_boilerplate_and_add_expansions_at_half_weight():
    weights = query_weights("What kind of dataset do they use?")
    [use] = terms("use")
    [corpus] = terms("corpus")
    [dataset] = terms("dataset")
    assert use not in weights
    assert weights[dataset] == 1.0
    assert weights[corpus] == 0.5


def test_hyphenated_words_also_match_joined():
    [joined_term] = terms("semicharacter")
    assert joined_term in query_weights("What is a semi-character architecture?")


def test_section_ids_number_runs_of_equal_labels():
    assert section_ids(["A", "A", "B", "A"]).tolist() == [0, 0, 1, 2]


def test_section_prior_marks_sections_the_question_type_points_to():
    labels = [label for label, _ in PAPER]
    assert section_prior("what dataset is used?", labels).tolist() == [0, 0, 1, 1, 0, 0]
    assert section_prior("Why?", labels).sum() == 0


def test_a_data_question_picks_a_paragraph_of_the_data_section():
    picks = pick_paragraphs(scores_for("What dataset do they use?"))
    assert picks and all(PAPER[i][0] == "Data" for i in picks)


def test_a_results_question_picks_the_results_paragraph_first():
    picks = pick_paragraphs(scores_for("What were their results?"))
    assert PAPER[picks[0]][0] == "Results"


def test_pick_takes_the_runner_up_only_when_close():
    assert pick_paragraphs(np.array([5.0, 0.0, 0.0, 0.0])) == [0]
    assert pick_paragraphs(np.array([5.0, 4.9, 0.0, 0.0])) == [0, 1]
    assert pick_paragraphs(np.zeros(0)) == []


def test_an_empty_paper_scores_nothing():
    assert paragraph_scores("q", question_vector(), [], [], np.zeros((0, 384))).shape == (0,)


def test_the_confidence_head_rises_with_the_z_score_and_stays_a_probability():
    z = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 3.5, 4.0])
    gold = np.array([0, 0, 0, 0, 0, 1, 0, 1])
    head = calibration_head(z, gold, {})
    p = head.predict(z[:, None])
    assert np.all(np.diff(p) > 0) and p.min() > 0.0 and p.max() < 1.0
    assert head.features == ["paper_z"]


def test_the_shipped_confidence_head_does_not_claim_certainty_for_a_typical_best_paragraph():
    from evidence.judge.heads import Head

    p = Head.load("paper_reader").predict(np.array([[3.0]]))[0]
    assert 0.05 < p < 0.9  # a best paragraph 3 SD above its paper is gold well under nine times in ten
