"""TREC and BrowseComp-Plus run file formats."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from evidence.eval.run_formats import (
    browsecomp_filename,
    browsecomp_run,
    qasper_predictions,
    renumber_citations,
    trec_order,
    trec_run,
    trec_run_lines,
    trec_scores_replaced,
    trec_scores_tsv,
)


def as_trec_eval_reads(lines: list[str]) -> list[str]:
    """Return the docids of run lines in the order trec_eval ranks them (score descending, docid descending)."""
    rows = [(line.split()[2], float(line.split()[4])) for line in lines]
    return [docid for docid, _ in trec_order(rows)]


def test_trec_lines_keep_our_order_with_our_scores_when_they_decrease() -> None:
    lines = trec_run_lines("q1", [("d2", 2.0), ("d3", 1.25), ("d1", 0.5)], "bm25")
    assert lines == ["q1 Q0 d2 1 2.0 bm25", "q1 Q0 d3 2 1.25 bm25", "q1 Q0 d1 3 0.5 bm25"]
    for line in lines:
        fields = line.split(" ")
        assert len(fields) == 6 and fields[1] == "Q0" and int(fields[3]) >= 1 and float(fields[4]) > 0


def test_tied_scores_become_ranks_so_trec_eval_reads_our_ranking() -> None:
    # A judge's rounded probabilities: most documents tie at 0.0, and trec_eval would re-order them by docid.
    ours = [("b", 0.9), ("a", 0.0), ("z", 0.0), ("c", 0.0), ("y", 0.3)]
    lines = trec_run_lines("q", ours, "t")
    assert as_trec_eval_reads(lines) == [docid for docid, _ in ours]
    scores = [float(line.split()[4]) for line in lines]
    assert all(a > b for a, b in itertools.pairwise(scores))
    assert trec_scores_replaced({"q": ours}) == ["q"]
    assert trec_scores_replaced({"q": [("a", 2.0), ("b", 1.0)]}) == []


def test_the_real_scores_go_to_a_second_file() -> None:
    text = trec_scores_tsv({"q": [("b", 0.9), ("a", 0.0), ("c", 0.0)]})
    assert text.splitlines() == ["qid\tdocid\trank\tscore", "q\tb\t1\t0.9", "q\ta\t2\t0.0", "q\tc\t3\t0.0"]


def test_trec_scores_round_trip_exactly() -> None:
    score = 0.1 + 0.2
    (line,) = trec_run_lines("q", [("d", score)], "t")
    assert float(line.split()[4]) == score


def test_trec_depth_cuts_our_ranking_not_a_resorted_one() -> None:
    lines = trec_run_lines("q", [("low", 0.0), ("high", 0.0), ("mid", 0.0)], "t", depth=2)
    assert [line.split()[2] for line in lines] == ["low", "high"]


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


def test_qasper_predictions_are_the_official_layout_one_line_per_id() -> None:
    text = qasper_predictions(
        [("q1", "BERT", ["para one", "para two"]), ("q2", "", []), ("q1+", "LSTM", ["para three"])]
    )
    rows = [json.loads(line) for line in text.splitlines()]
    assert [set(row) for row in rows] == [{"question_id", "predicted_answer", "predicted_evidence"}] * 2
    # The official evaluator keeps the last line of a repeated id: so do we, once.
    assert {row["question_id"]: row["predicted_answer"] for row in rows} == {"q1": "LSTM", "q2": ""}
    assert rows[-1]["predicted_evidence"] == ["para three"]


def browsecomp_citations(text: str) -> set[str]:
    """Read citations the way BrowseComp-Plus's evaluator does: [digits], or digit runs inside [...] or 【...】."""
    found = set(re.findall(r"\[(\d+)\]", text)) | set(re.findall(r"【(\d+)】", text))
    for inner in re.findall(r"\[([^\[\]]*?)\]", text) + re.findall(r"【([^【】]*?)】", text):
        if inner not in found:
            found.update(re.findall(r"\d+", inner))
    return found


def test_citations_are_renumbered_so_the_evaluator_reads_them_whole() -> None:
    explanation = "Tables help [1809.06537]. Both agree [1809.06537, note-3]. See [Figure 2]."
    assert browsecomp_citations(explanation) >= {"1809", "06537"}  # what the evaluator made of our ids
    ids = {"1809.06537": "17", "note-3": "4"}
    renumbered = renumber_citations(explanation, ids)
    assert renumbered == "Tables help [17]. Both agree [17, 4]. See (Figure 2)."
    assert browsecomp_citations(renumbered) == {"17", "4"}, "the paper's own bracket is no citation"


def test_quoted_brackets_make_no_citations() -> None:
    quoted = "hazard ratio [95% CI]: 2.50 [1.22-5.16] as shown 【3】 and [n = 12] [a]."
    assert browsecomp_citations(quoted) == {"95", "1", "22", "5", "16", "3", "12"}, "what the evaluator made of it"
    assert browsecomp_citations(renumber_citations(quoted + " [x1]", {"x1": "8"})) == {"8"}
    assert renumber_citations("ratio [1.22-5.16] [x1]", {"x1": "8"}) == "ratio (1.22-5.16) [8]"
