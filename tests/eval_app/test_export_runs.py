"""`export_runs`: files that read back, in the outside evaluators' own terms, what `evaluate` scored."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from evidence.eval.benchmarks import Qasper
from evidence.eval.metrics_qasper import get_answers_and_evidence, qasper_question_scores, qasper_summary
from evidence.eval.run_export import TOOL_EVENTS, run_ranking
from evidence.eval.run_formats import trec_order
from evidence.models import Evaluation
from tests.eval.test_run_formats import browsecomp_citations

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.DATA_DIR = tmp_path


@pytest.fixture
def fixture_data(qasper_fixture):
    return qasper_fixture


def evaluate(capsys, *args: str) -> dict:
    call_command("evaluate", *args, verbosity=0)
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_repeated_question_id_is_one_question_as_the_official_evaluator_keys_it(fixture_data, tmp_path):
    raw = json.loads(fixture_data.read_text())
    paper = next(iter(raw.values()))
    repeat = json.loads(json.dumps(paper["qas"][0]))
    repeat["answers"][0]["answer"]["free_form_answer"] = "a later annotation"
    repeat["answers"][0]["answer"]["extractive_spans"] = []
    paper["qas"].append(repeat)
    data = tmp_path / "repeated.json"
    data.write_text(json.dumps(raw))
    questions = Qasper(data).questions()
    ids = [q.qid for q in questions]
    assert len(ids) == len(set(ids)) == len(get_answers_and_evidence(raw))
    (kept,) = [q for q in questions if q.qid == repeat["question_id"]]
    assert kept.gold["references"][0]["answer"] == "a later annotation"  # the last entry, as a dict keeps it


def test_qasper_predictions_score_as_the_evaluation_did(capsys, fixture_data, tmp_path):
    summary = evaluate(capsys, "qasper", "--data", str(fixture_data), "--system", "pi_serini")
    out = tmp_path / "predictions.jsonl"
    call_command("export_runs", str(summary["evaluation"]), "--format", "qasper", "--out", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(set(row) == {"question_id", "predicted_answer", "predicted_evidence"} for row in rows)
    assert all(isinstance(p, str) for row in rows for p in row["predicted_evidence"])
    gold = get_answers_and_evidence(json.loads(fixture_data.read_text()))
    assert sorted(row["question_id"] for row in rows) == sorted(gold)
    # Scored from the file alone, keyed by id: the figures `evaluate` printed.
    predicted = {row["question_id"]: row for row in rows}
    per_question = [
        qasper_question_scores(predicted[qid]["predicted_answer"], predicted[qid]["predicted_evidence"], refs)
        for qid, refs in gold.items()
    ]
    again = qasper_summary(per_question)
    assert again["answer_f1"] == pytest.approx(summary["answer_f1"], abs=1e-9)
    assert again["evidence_f1"] == pytest.approx(summary["evidence_f1"], abs=1e-9)


def test_the_trec_file_holds_the_ranking_we_scored(capsys, fixture_data, tmp_path):
    summary = evaluate(capsys, "qasper", "--data", str(fixture_data), "--system", "single_pass")
    out = tmp_path / "run.trec"
    call_command("export_runs", str(summary["evaluation"]), "--format", "trec", "--out", str(out))
    by_qid: dict[str, list[tuple[str, float]]] = {}
    for line in out.read_text().splitlines():
        qid, _q0, docid, _rank, score, _tag = line.split()
        by_qid.setdefault(qid, []).append((docid, float(score)))
    evaluation = Evaluation.objects.get(pk=summary["evaluation"])
    for item in evaluation.items.select_related("run"):
        ours = [docid for docid, _ in run_ranking(item.run)][:1000]
        assert [docid for docid, _ in trec_order(by_qid.get(item.qid, []))] == ours


def test_browsecomp_files_show_what_the_model_saw_and_did(capsys, fixture_data, tmp_path):
    summary = evaluate(capsys, "qasper", "--data", str(fixture_data), "--system", "pi_serini")
    out = tmp_path / "bc"
    call_command("export_runs", str(summary["evaluation"]), "--format", "browsecomp", "--out", str(out))
    evaluation = Evaluation.objects.get(pk=summary["evaluation"])
    runs = {item.qid: item.run for item in evaluation.items.select_related("run")}
    numbers = {}
    if (out / "docids.tsv").exists():
        numbers = dict(line.split("\t") for line in (out / "docids.tsv").read_text().splitlines()[1:])
    answered = cited_any = 0
    for path in sorted(out.glob("run_*.json")):
        exported = json.loads(path.read_text())
        run = runs[exported["query_id"]]
        calls = [item for item in exported["result"] if item["type"] == "tool_call"]
        assert calls and calls[0]["tool_name"] == "search"
        # BrowseComp-Plus's own extractor finds every retrieved docid in the search outputs, and no other.
        assert set(extract_retrieved_docids_from_result(exported["result"])) == set(exported["retrieved_docids"])
        shown = {hit["docid"] for e in run.events.filter(kind="search") for hit in e.payload.get("top", [])}
        assert {numbers.get(d, d) for d in exported["retrieved_docids"]} >= shown
        assert {c["tool_name"] for c in calls} <= {"search", "get_document"}
        assert {c.get("our_tool_name", c["tool_name"]) for c in calls} <= set(TOOL_EVENTS)
        assert exported["tool_call_counts"] == {
            name: sum(1 for c in calls if c["tool_name"] == name) for name in {c["tool_name"] for c in calls}
        }
        assert exported["tool_call_counts"]["search"] == run.events.filter(kind="search").count()
        for call in calls:
            json.loads(call["arguments"])
        if exported["status"] == "completed":
            answer = exported["result"][-1]
            assert answer["type"] == "output_text"
            cited = browsecomp_citations(answer["output"])
            ours = set(run.citations.values_list("span__document__docid", flat=True))
            assert {numbers.get(c, c) for c in cited} == ours, "no citation lost or made up"
            answered += 1
            cited_any += bool(cited)
    assert answered and cited_any  # the checks above ran on real answers with citations


def extract_retrieved_docids_from_result(result: list[dict]) -> list[str]:
    """BrowseComp-Plus's reading of a run's retrieved docids (search_agent/utils.py, written from its documented
    behaviour): the `docid` of each item of a JSON list output by a tool whose name contains "search" or
    "retrieval", else `"docid": ...` found in the raw output."""
    found: set[str] = set()
    for item in result:
        if item.get("type") != "tool_call":
            continue
        name = str(item.get("tool_name") or "").lower()
        if "search" not in name and "retrieval" not in name:
            continue
        output = item.get("output")
        try:
            parsed = json.loads(output) if isinstance(output, str) else output
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            found.update(str(elem["docid"]) for elem in parsed if isinstance(elem, dict) and "docid" in elem)
        elif isinstance(output, str):
            found.update(re.findall(r'"docid"\s*:\s*"([^"]+)"', output) + re.findall(r'"docid"\s*:\s*(\d+)', output))
    return sorted(found)
