"""`manage.py evaluate papers`: a user's own gold questions over their collection, asked as the Ask page asks."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from evidence.models import Evaluation, Run
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

DOCS = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors in the brain. In a laboratory "
    b"study, 400 mg of caffeine taken six hours before bedtime reduced total sleep time by more than one hour.\n\n"
    b"The half-life of caffeine in adults is about five hours.\n",
    "walking.md": b"# Walking and memory\n\nOne year of aerobic walking increased hippocampal volume by two percent "
    b"in older adults. Stretching did not.\n",
}
QUESTIONS = [
    {
        "qid": "q1",
        "question": "By how much did aerobic walking increase hippocampal volume in older adults?",
        "answers": ["two percent", "2%"],
        "type": "number",
        "evidence": [
            {"docid": "walking", "quote": "One year of aerobic walking increased hippocampal volume by two percent"}
        ],
    },
    {
        "qid": "q2",
        "question": "What is the price of a cup of coffee in Vienna?",
        "answers": ["unanswerable"],
        "type": "unanswerable",
        "evidence": [],
    },
]


@pytest.fixture
def library(collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.DATA_DIR = tmp_path
    ingest_now(collection, DOCS.items())
    return collection


def test_it_scores_a_collection_against_gold_questions_and_prints_one_json_line(library, tmp_path, capsys):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(QUESTIONS))
    call_command(
        "evaluate",
        "papers",
        "--questions",
        str(path),
        "--collection",
        library.name,
        "--system",
        "single_pass",
        verbosity=0,
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in (
        "evidence_hit",
        "evidence_precision",
        "answer_accuracy",
        "abstain_correct",
        "false_abstain",
        "ece",
        "p50_s",
        "p95_s",
    ):
        assert key in summary
    assert summary["questions"] == 2 and summary["answerable"] == 1
    assert summary["gold_quotes_found"] == 1  # the quote was located in the stored text
    assert summary["evidence_hit"] == 1.0
    evaluation = Evaluation.objects.get(benchmark="papers")
    assert evaluation.owner == library.owner
    # Asked over the whole collection, with nothing the Ask page would not set.
    for run in Run.objects.all():
        assert "scope_docids" not in run.config and "reader" not in run.config


def test_a_scoped_evaluation_asks_each_question_about_its_own_paper_through_the_command(library, tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(QUESTIONS[:1]))
    args = ["evaluate", "papers", "--questions", str(path), "--collection", library.name, "--system", "single_pass"]
    call_command(*args, verbosity=0)
    call_command(*args, "--scoped", verbosity=0)
    whole, scoped = Evaluation.objects.order_by("pk")
    assert whole.key != scoped.key and scoped.config.get("scoped") is True
    (run,) = Run.objects.filter(evaluation_items__evaluation=scoped)
    assert run.config["scope_docids"] == ["walking"]  # the gold paper only, as "Ask about this document" asks
    (run,) = Run.objects.filter(evaluation_items__evaluation=whole)
    assert "scope_docids" not in run.config


def test_it_refuses_an_unknown_collection(library, tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(QUESTIONS))
    with pytest.raises(CommandError, match="No collection named"):
        call_command("evaluate", "papers", "--questions", str(path), "--collection", "nope", verbosity=0)
