"""The local provider: the Judge protocol, batching, calibrated heads and the grade distribution."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import fake_embed, make_unit

from evidence.judge.features import BLOCK_FEATURES, STACKED_FEATURES, UNIT_FEATURES
from evidence.judge.heads import PARAMS_DIR, Head
from evidence.judge.local import LocalJudge, grade_distribution
from evidence.judge.multihop import CONDITIONAL_FEATURES, PAIR_FEATURES
from evidence.judge.types import ChoiceQuestion, Judge, NoulQuestion, ScoreQuestion

HEADS = (
    "sentence",
    "document",
    "paragraph",
    "multihop",
    "multihop_unit",
    "multihop_pair",
    "multihop_sentence",
    "paper_reader",
)


UNITS = [
    make_unit(
        "a",
        [
            "Vitamin D lowers the risk of fractures by 20% in older adults.",
            "Patients were recruited.",
            "No other effects were seen.",
        ],
        score=0.9,
        rank=1,
    ),
    make_unit("b", ["Coffee intake was not associated with sleep.", "The cohort was large."], score=0.4, rank=2),
]
GOAL = "Vitamin D lowers fracture risk in older adults"


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(embed=fake_embed)


def test_it_implements_the_judge_protocol(judge: LocalJudge) -> None:
    assert isinstance(judge, Judge)


def test_noul_is_batched_and_keeps_order(judge: LocalJudge) -> None:
    questions = [NoulQuestion(GOAL, UNITS[1], (0,)), NoulQuestion(GOAL, UNITS[0], (0,)), NoulQuestion(GOAL, UNITS[0])]
    p = judge.noul(questions)
    assert len(p) == 3 and all(0.0 <= x <= 1.0 for x in p)
    assert p[1] > p[0]  # the matching sentence beats the unrelated one
    assert p[2] >= p[1]  # a region holding the block is at least as likely to hold evidence


def test_choice_is_a_distribution_over_blocks(judge: LocalJudge) -> None:
    options = {f"b{i}": b for i, b in enumerate(UNITS[0].blocks)}
    [answer] = judge.choice([ChoiceQuestion(GOAL, options, UNITS[0])])
    assert answer.choice == "b0" and sum(answer.probabilities.values()) == pytest.approx(1.0)


def test_score_gives_four_grades_with_p_d_the_unit_probability(judge: LocalJudge) -> None:
    answers = judge.score([ScoreQuestion(GOAL, u, peers=tuple(UNITS)) for u in UNITS])
    p = judge.unit_probabilities(GOAL, UNITS)
    for a, pu in zip(answers, p, strict=True):
        assert len(a.probabilities) == 4 and sum(a.probabilities) == pytest.approx(1.0)
        assert a.p_relevant == pytest.approx(pu)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
def test_grade_distribution_keeps_p_d(p: float) -> None:
    grades = grade_distribution(p)
    assert sum(grades) == pytest.approx(1.0) and grades[2] + grades[3] == pytest.approx(p) and min(grades) >= 0


@pytest.mark.parametrize("name", HEADS)
def test_heads_are_small_calibrated_and_monotone(name: str) -> None:
    head = Head.load(name)
    assert (PARAMS_DIR / f"{name}.json").stat().st_size < 1_000_000
    assert head.platt[0] > 0  # calibration keeps the order of raw scores
    expected = {
        "document": UNIT_FEATURES,
        "multihop_unit": UNIT_FEATURES,
        "multihop_pair": PAIR_FEATURES,
        "multihop_sentence": (*BLOCK_FEATURES, *CONDITIONAL_FEATURES),
        "paper_reader": ("paper_z",),
    }.get(name, (*BLOCK_FEATURES, *STACKED_FEATURES))
    assert head.features == [n for n in expected if n in head.features]  # a subset, in the features' order
    x = np.random.default_rng(0).normal(size=(200, len(head.features)))
    raw, p = head.raw(x), head.predict(x)
    assert np.all(np.diff(p[np.argsort(raw)]) >= -1e-12)


def test_a_head_reads_its_named_columns_in_its_own_order() -> None:
    head = Head("h", ["b", "a"], mean=[0.0, 0.0], scale=[1.0, 1.0], coef=[1.0, 10.0])
    x = np.array([[1.0, 2.0, 3.0]])  # columns a, b, c
    assert head.select(x, ["a", "b", "c"]).tolist() == [[2.0, 1.0]]
    assert head.raw(head.select(x, ["a", "b", "c"])).tolist() == [12.0]
