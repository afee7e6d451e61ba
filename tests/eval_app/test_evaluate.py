"""The evaluation runner, `compare` and `check_replay` through the real loop on small real-format data."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from evidence.models import Evaluation, EvaluationItem, Run

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.DATA_DIR = tmp_path


def evaluate(capsys, *args: str) -> dict:
    call_command("evaluate", *args, verbosity=0)
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_it_evaluates_qasper_prints_one_summary_line_and_resumes(qasper_fixture, capsys, shared_data):
    data = str(qasper_fixture)
    summary = evaluate(capsys, "qasper", "--data", data, "--system", "single_pass")
    assert summary["questions"] == 4
    for key in (
        "answer_f1",
        "evidence_f1",
        "answer_f1_by_type",
        "p50_s",
        "p95_s",
        "calls_per_question",
        "cost_usd",
        "funnel",
        "failure_stages",
    ):
        assert key in summary
    assert 0.0 <= summary["answer_f1"] <= 1.0
    runs = Run.objects.count()
    again = evaluate(capsys, "qasper", "--data", data, "--system", "single_pass")
    assert Run.objects.count() == runs  # every question was already done: nothing re-run
    assert again["answer_f1"] == summary["answer_f1"]


def test_an_interrupted_evaluation_continues_where_it_stopped(qasper_fixture, capsys, shared_data):
    data = str(qasper_fixture)
    evaluate(capsys, "qasper", "--data", data, "--system", "single_pass", "--limit", "2")
    assert EvaluationItem.objects.count() == 2
    evaluate(capsys, "qasper", "--data", data, "--system", "single_pass")
    assert EvaluationItem.objects.count() == 4
    assert Evaluation.objects.count() == 1


def test_a_zero_spending_cap_stops_the_evaluation(qasper_fixture, capsys, shared_data):
    data = str(qasper_fixture)
    summary = evaluate(capsys, "qasper", "--data", data, "--system", "single_pass", "--spend-cap", "0")
    assert summary["questions"] == 0
    assert Evaluation.objects.get().status == Evaluation.Status.STOPPED


def test_compare_prints_intervals_and_the_failure_table(qasper_fixture, capsys, shared_data):
    data = str(qasper_fixture)
    a = evaluate(capsys, "qasper", "--data", data, "--system", "single_pass")["evaluation"]
    b = evaluate(capsys, "qasper", "--data", data, "--system", "pi_serini")["evaluation"]
    call_command("compare", str(a), str(b))
    out = capsys.readouterr().out
    assert "95% CI" in out and "failure stage (wrong answers)" in out
    report = json.loads(out.strip().splitlines()[-1])
    assert report["paired_questions"] == 4
    assert {row["metric"] for row in report["metrics"]} >= {"answer_f1", "evidence_f1"}


def test_check_replay_finds_an_offline_run_identical(qasper_fixture, capsys, shared_data):
    data = str(qasper_fixture)
    evaluate(capsys, "qasper", "--data", data, "--system", "pi_serini", "--limit", "1")
    run = Run.objects.order_by("pk").first()
    call_command("check_replay", str(run.pk))
    assert "identical" in capsys.readouterr().out


def test_it_exports_trec_and_browsecomp_run_files(qasper_fixture, capsys, shared_data, tmp_path):
    data = str(qasper_fixture)
    evaluation = evaluate(capsys, "qasper", "--data", data, "--system", "pi_serini")["evaluation"]
    call_command("export_runs", str(evaluation), "--format", "trec", "--out", str(tmp_path / "run.trec"))
    lines = (tmp_path / "run.trec").read_text().splitlines()
    assert lines
    for line in lines:
        _qid, q0, _docid, rank, score, tag = line.split()
        assert q0 == "Q0" and int(rank) >= 1 and float(score) == float(score) and tag == "evidence-pi_serini"
    call_command("export_runs", str(evaluation), "--format", "browsecomp", "--out", str(tmp_path / "bc"))
    files = sorted((tmp_path / "bc").glob("run_*.json"))
    assert len(files) == 4
    run = json.loads(files[0].read_text())
    assert set(run) == {"metadata", "query_id", "tool_call_counts", "usage", "status", "retrieved_docids", "result"}
    assert run["tool_call_counts"]["search"] >= 1
    if run["status"] == "completed":
        assert run["result"][-1]["type"] == "output_text"


def test_an_answer_judge_reports_accuracy_and_agreement_and_replays_without_a_server(
    qasper_fixture, capsys, shared_data
):
    from tests.agent.fake_openai import FakeOpenAI, text

    data = str(qasper_fixture)
    with FakeOpenAI() as server:
        server.default = text("extracted_final_answer: x\nreasoning: same\ncorrect: yes")
        judged = evaluate(
            capsys,
            "qasper",
            "--data",
            data,
            "--system",
            "single_pass",
            "--answer-judge",
            "gpt-4o-mini",
            "--judge-base-url",
            server.base_url,
        )
        assert len(server.requests) == 4
        assert "[correct_answer]" in server.requests[0].body["messages"][0]["content"]
    assert judged["judged_accuracy"] == 1.0 and judged["judged"] == 4
    assert 0.0 <= judged["judge_agreement"] <= 1.0
    replayed = evaluate(
        capsys,
        "qasper",
        "--data",
        data,
        "--system",
        "single_pass",
        "--answer-judge",
        "gpt-4o-mini",
        "--judge-replay-of",
        str(judged["evaluation"]),
    )
    assert replayed["judged_accuracy"] == 1.0 and replayed["judge_agreement"] == judged["judge_agreement"]


@pytest.mark.slow  # the real SciFact data through the real model: ~18 s
def test_it_evaluates_scifact_with_ranking_and_rationale_metrics(capsys, shared_data, tmp_path):
    corpus_lines = (shared_data / "scifact" / "corpus.jsonl").read_text().splitlines()
    claims = json.loads((shared_data / "scifact" / "claims_train.json").read_text())
    kept = {json.loads(line)["doc_id"] for line in corpus_lines[:120]}
    small = [c for c in claims if c["cited_doc_ids"] and set(c["cited_doc_ids"]) <= kept][:3]
    assert small, "the first 120 abstracts are cited by some claims"
    (tmp_path / "corpus.jsonl").write_text("\n".join(corpus_lines[:120]) + "\n")
    (tmp_path / "claims.json").write_text(json.dumps(small))
    summary = evaluate(
        capsys,
        "scifact",
        "--corpus",
        str(tmp_path / "corpus.jsonl"),
        "--claims",
        str(tmp_path / "claims.json"),
        "--system",
        "dual",
    )
    for key in (
        "ndcg@10",
        "ndcg@20",
        "recall@100",
        "recall@1000",
        "ranking_ndcg@20",
        "f1@20",
        "rationale_precision",
        "rationale_recall",
        "rationale_f1",
    ):
        assert 0.0 <= summary[key] <= 1.0, key
    assert summary["recall@1000"] > 0.5
