"""TREC and BrowseComp-Plus run file formats."""

from __future__ import annotations

import json

import pytest

from evidence.eval.exports import browsecomp_filename, browsecomp_run, trec_order, trec_run, trec_run_lines


def test_trec_lines_are_ranked_from_one_by_score() -> None:
    lines = trec_run_lines("q1", [("d1", 0.5), ("d2", 2.0), ("d3", 1.25)], "bm25")
    assert lines == ["q1 Q0 d2 1 2.0 bm25", "q1 Q0 d3 2 1.25 bm25", "q1 Q0 d1 3 0.5 bm25"]
    for line in lines:
        fields = line.split(" ")
        assert len(fields) == 6 and fields[1] == "Q0" and int(fields[3]) >= 1 and float(fields[4]) > 0


def test_trec_ties_break_by_docid_descending_as_trec_eval() -> None:
    hits = [("a", 1.0), ("c", 1.0), ("b", 1.0), ("z", 0.5)]
    assert [d for d, _ in trec_order(hits)] == ["c", "b", "a", "z"]
    assert trec_run_lines("q", hits, "t") == trec_run_lines("q", list(reversed(hits)), "t")


def test_trec_scores_round_trip_exactly() -> None:
    score = 0.1 + 0.2
    (line,) = trec_run_lines("q", [("d", score)], "t")
    assert float(line.split()[4]) == score


def test_trec_depth_and_whole_file() -> None:
    text = trec_run({"q2": [("x", 1.0)], "q1": [("a", 3.0), ("b", 2.0), ("c", 1.0)]}, "run", depth=2)
    assert text == "q1 Q0 a 1 3.0 run\nq1 Q0 b 2 2.0 run\nq2 Q0 x 1 1.0 run\n"


@pytest.mark.parametrize(
    ("qid", "hits", "tag"),
    [
        ("q 1", [("d", 1.0)], "t"),
        ("q", [("d d", 1.0)], "t"),
        ("q", [("d", 1.0)], ""),
        ("q", [("d", 1.0), ("d", 0.5)], "t"),
        ("q", [("d", float("nan"))], "t"),
    ],
)
def test_trec_rejects_malformed_input(qid: str, hits: list, tag: str) -> None:
    with pytest.raises(ValueError):
        trec_run_lines(qid, hits, tag)


def test_browsecomp_run_matches_the_official_layout() -> None:
    run = browsecomp_run(
        query_id=784,
        answer="Explanation: ... [12]\nExact Answer: Paris\nConfidence: 80%",
        retrieved_docids=["12", "7", "12", 31],
        tool_call_counts={"search": 3, "get_document": 1},
        steps=[{"type": "tool_call", "tool_name": "search", "arguments": '{"query": "x"}', "output": "[]"}],
        metadata={"model": "evidence-desk"},
    )
    assert list(run) == ["metadata", "query_id", "tool_call_counts", "usage", "status", "retrieved_docids", "result"]
    assert run["query_id"] == "784"
    assert run["status"] == "completed"
    assert run["retrieved_docids"] == ["12", "7", "31"]
    assert run["tool_call_counts"] == {"get_document": 1, "search": 3}
    # What scripts_evaluation/evaluate_with_openai.py reads:
    assert run["result"][-1]["type"] == "output_text"
    assert run["result"][-1]["output"].endswith("Confidence: 80%")
    assert run["result"][0] == {
        "type": "tool_call",
        "tool_name": "search",
        "arguments": '{"query": "x"}',
        "output": "[]",
    }
    assert json.loads(json.dumps(run)) == run


def test_browsecomp_run_without_an_answer_has_no_output_text() -> None:
    run = browsecomp_run("q", "", [], {}, status="incomplete")
    assert run["result"] == [] and run["status"] == "incomplete"


def test_browsecomp_filename_matches_the_evaluator_glob() -> None:
    assert browsecomp_filename("784") == "run_784.json"
    assert browsecomp_filename("a/b c") == "run_a_b_c.json"
