"""Evidence localization: the seed's block-selection rules, windows, batching and adaptive reading."""

from __future__ import annotations

import pytest
from conftest import ScriptedJudge, make_unit

from evidence.judge.localize import localize, localize_batch, select, windows
from evidence.judge.types import ChoiceAnswer, NoulQuestion

SENTS = ["Alpha one.", "Beta two.", "Gamma three."]


def test_it_takes_the_top_block_alone_at_or_above_0_8() -> None:
    assert [k for k, _ in select(ChoiceAnswer.from_probabilities({"a": 0.85, "b": 0.15}))] == ["a"]


def test_it_adds_the_second_block_when_top_below_0_8_and_second_at_least_0_15() -> None:
    assert [k for k, _ in select(ChoiceAnswer.from_probabilities({"a": 0.6, "b": 0.25, "c": 0.15}))] == ["a", "b"]
    assert [k for k, _ in select(ChoiceAnswer.from_probabilities({"a": 0.86, "b": 0.14, "c": 0.0}))] == ["a"]
    assert [k for k, _ in select(ChoiceAnswer.from_probabilities({"a": 0.7, "b": 0.14, "c": 0.16}))] == ["a", "c"]


def test_windows_overlap_cover_the_unit_and_stop_at_16() -> None:
    assert windows(3) == [(0, 1, 2)]
    assert windows(9) == [(0, 1, 2, 3), (2, 3, 4, 5), (4, 5, 6, 7), (5, 6, 7, 8)]
    for n in (35, 60, 200):
        many = windows(n)
        assert len(many) <= 16 and {i for w in many for i in w} == set(range(n))


@pytest.mark.parametrize(
    ("probs", "expected"),
    [((0.9, 0.05, 0.05), [0]), ((0.5, 0.4, 0.0), [0, 1]), ((0.45, 0.4, 0.1), [])],
)
def test_it_selects_blocks_only_for_regions_with_e_at_least_0_5(probs: tuple[float, ...], expected: list[int]) -> None:
    unit = make_unit("d1", SENTS)
    judge = ScriptedJudge({("q", "d1", i): p for i, p in enumerate(probs)})
    spans = localize_batch(judge, "q", [unit], adapt_floor=None).spans
    assert [unit.blocks.index(next(b for b in unit.blocks if b.start == s.start)) for s in spans] == expected
    text = " ".join(SENTS)
    assert all(text[s.start : s.end] == s.quote for s in spans)


class SummingJudge(ScriptedJudge):
    """A judge whose region probability grows with the context it reads (sum of block probabilities)."""

    def noul(self, questions: list[NoulQuestion]) -> list[float]:  # type: ignore[override]
        self.calls.append(("noul", len(questions)))
        return [min(1.0, sum(self._p(q.goal, b) for b in q.blocks())) for q in questions]


def test_adaptive_reading_grows_a_near_miss_by_a_page_and_stops_when_supported() -> None:
    unit = make_unit("d", [f"S{i}." for i in range(8)])
    judge = SummingJudge({("q", "d", i): 0.1 for i in range(1, 7)})
    result = localize_batch(judge, "q", [unit], adapt_floor=0.3)
    nouls = [j for j in result.judgments if j["kind"] == "noul"]
    assert [round(float(j["p"]), 2) for j in nouls] == [0.3, 0.4, 0.3, 0.6]  # three windows, then one grown read
    assert nouls[-1]["blocks"] == list(range(8))
    assert len(result.spans) == 2  # each block has 1/6 < 0.8 of the choice: top plus second (>= 0.15)


def test_adaptive_reading_stops_when_nothing_new() -> None:
    unit = make_unit("d", SENTS)
    judge = SummingJudge({("q", "d", 0): 0.4})
    result = localize_batch(judge, "q", [unit], adapt_floor=0.3)
    assert [j["kind"] for j in result.judgments] == ["noul"] and not result.spans


def test_it_batches_ten_units_per_call_and_caps_requests_and_sub_questions() -> None:
    units = [make_unit(f"d{i}", SENTS) for i in range(25)]
    judge = ScriptedJudge({(f"q{k}", "d3", 0): 0.95 for k in range(8)})
    result = localize(judge, [f"q{k}" for k in range(8)], units, adapt_floor=None)
    nouls = [n for kind, n in judge.calls if kind == "noul"]
    assert nouls == [10, 10, 5] * 6  # 6 sub-questions at most, units in batches of 10, one region each
    assert result.supported() == {f"q{k}" for k in range(6)}
    with pytest.raises(ValueError):
        localize(judge, ["q"], [make_unit(f"x{i}", SENTS) for i in range(61)])


def test_threshold_selector_keeps_every_block_at_or_above_it_in_one_noul_call() -> None:
    unit = make_unit("d", ["a.", "b.", "c.", "d.", "e."])
    judge = ScriptedJudge({("g", "d", 0): 0.1, ("g", "d", 1): 0.3, ("g", "d", 3): 0.22, ("g", "d", 4): 0.9})
    out = localize(judge, ["g"], [unit], threshold=0.22)
    assert sorted(unit.blocks.index(b) for s in out.spans for b in unit.blocks if b.start == s.start) == [1, 3, 4]
    assert all(unit.text[s.start : s.end] == s.quote for s in out.spans)
    assert judge.calls == [("noul", 5)]
