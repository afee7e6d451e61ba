"""Relevance assessment (theta, continue cadence) and evidence mining (priority, tau, m)."""

from __future__ import annotations

from conftest import ScriptedJudge, make_unit

from evidence.judge.mining import can_start_batch, mine_qa, mine_ranking, pick_leads, priorities, split_clues
from evidence.judge.relevance import assess_relevance


def test_it_keeps_p_d_at_least_theta_plus_unjudged_and_asks_to_continue_every_20() -> None:
    units = [make_unit(f"d{i:02}", ["x."], rank=i + 1) for i in range(50)]
    p = {f"d{i:02}": 0.1 for i in range(50)}
    p.update({"d03": 0.6, "d07": 0.25, "d08": 0.24})
    judge = ScriptedJudge({}, p)
    result = assess_relevance(judge, "topic", units)
    assert [c for c in judge.calls] == [("score", 20), ("noul", 1), ("score", 20), ("noul", 1)]
    assert result.continue_probabilities == [0.6, 0.1]  # the second says stop (< 0.5)
    assert result.unjudged == [f"d{i}" for i in range(40, 50)]
    assert result.kept == ["d03", "d07", *result.unjudged]
    assert result.ranking()[:3] == ["d03", "d07", "d08"]


def test_it_judges_everything_when_continue_stays_high() -> None:
    units = [make_unit(f"d{i}", ["x."]) for i in range(45)]
    judge = ScriptedJudge({}, {f"d{i}": 0.9 for i in range(45)})
    result = assess_relevance(judge, "topic", units)
    assert len(result.judged) == 45 and not result.unjudged
    assert [n for kind, n in judge.calls if kind == "score"] == [20, 20, 5]


def test_priority_is_the_sum_of_inverse_clue_counts() -> None:
    hits = {"a": {0, 1}, "b": {0}, "c": {1, 2}}
    s = priorities(hits)
    assert s == {"a": 1.0, "b": 0.5, "c": 1.5}  # n0 = 2, n1 = 2, n2 = 1
    assert pick_leads(s, list(hits), 0.5, 3, fallback=True) == ["c", "a", "b"]
    assert pick_leads(s, list(hits), 0.5, 2, fallback=True) == ["c", "a"]


def test_it_falls_back_to_the_best_clue_holder_when_none_reaches_tau() -> None:
    s = priorities({"a": {0}, "b": {0}, "c": {0}})
    assert pick_leads(s, ["a", "b", "c"], 0.5, 3, fallback=True) == ["a"]
    assert pick_leads(s, ["a", "b", "c"], 0.5, 3, fallback=False) == []


def test_clues_are_at_most_six() -> None:
    q = ("Which jazz bassist, born in the 1940s in the southern hemisphere, who died in the early 2010s, "
         "played at a royal command performance with his first band; grew up in a township founded in the "
         "late 1920s, whose history a 1990s thesis describes, and thanked a friend in oceanography?")
    clues = split_clues(q)
    assert 1 <= len(clues) <= 6 and all(c in q for c in clues)


def test_mine_qa_ranks_leads_by_clue_specificity() -> None:
    units = [make_unit(d, ["first clue text.", "second clue text."]) for d in ("a", "b", "c", "d")]
    p = {("x y", "a", 0): 0.9, ("x y", "b", 0): 0.9, ("z w", "b", 1): 0.9, ("z w", "c", 1): 0.2}
    leads = mine_qa(ScriptedJudge(p), "x y", units, clues=["x y", "z w"], judged={"d"})
    assert [(lead.docid, lead.priority) for lead in leads] == [("b", 1.5), ("a", 0.5)]
    assert leads[0].clues == ("x y", "z w") and len(leads[0].spans) == 2


def test_mine_ranking_keeps_ten_undelivered_with_p_at_least_half() -> None:
    units = [make_unit(f"d{i:02}", ["x."]) for i in range(70)]
    judge = ScriptedJudge({}, {f"d{i:02}": 0.9 - i * 0.01 for i in range(70)})
    leads = mine_ranking(judge, "t", units, judged={"d00"}, delivered={"d01"})
    assert [lead.docid for lead in leads] == [f"d{i:02}" for i in range(2, 12)]
    assert [n for kind, n in judge.calls if kind == "score"] == [60]


def test_a_batch_starts_only_45_seconds_before_the_steer() -> None:
    assert can_start_batch(45.0) and not can_start_batch(44.9)
