"""Evaluating a question set from the Evaluations page: upload, validation, the queued job, its progress and charts,
comparison, and isolation (another user's evaluation is a 404, another user's collection no choice)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evidence.models import Collection, Evaluation, EvaluationItem
from evidence.services import evaluations
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

DOCS = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors in the brain. In a laboratory "
    b"study, 400 mg of caffeine taken six hours before bedtime reduced total sleep time by more than one hour.\n",
    "walking.md": b"# Walking and memory\n\nOne year of aerobic walking increased hippocampal volume by two percent "
    b"in older adults. Stretching did not.\n",
}
CSV = (
    b"question,answers,evidence\n"
    b"By how much did aerobic walking increase hippocampal volume?,two percent | 2%,"
    b"aerobic walking increased hippocampal volume by two percent\n"
    b"What is the price of a cup of coffee in Vienna?,unanswerable,\n"
)
ONE = {"qid": "q1", "question": "Q?", "answers": ["a"], "type": "", "evidence": []}


@pytest.fixture
def queued(monkeypatch) -> list[int]:
    """The evaluations sent to the workers (none is sent: the test runs one itself when it needs to)."""
    sent: list[int] = []
    monkeypatch.setattr(evaluations, "enqueue", lambda evaluation: sent.append(evaluation.pk))
    return sent


@pytest.fixture
def library(collection, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    ingest_now(collection, DOCS.items())
    return collection


def post(client, collection, data: bytes = CSV, name: str = "my questions.csv", system: str = "single_pass"):
    upload = SimpleUploadedFile(name, data, content_type="text/csv")
    return client.post("/evaluations/", {"questions": upload, "collection": collection.pk, "system": system})


def test_it_starts_an_evaluation_of_an_uploaded_csv(logged_in_client, library, queued):
    response = post(logged_in_client, library)
    evaluation = Evaluation.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/evaluations/{evaluation.pk}/"
    assert queued == [evaluation.pk]
    assert (
        evaluation.status == "queued" and evaluation.label == "my questions.csv" and evaluation.system == "single_pass"
    )
    assert [q["qid"] for q in evaluation.questions] == ["q1", "q2"] and evaluation.collection == library
    html = logged_in_client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    assert "Waiting for a worker." in html and 'id="progress-count">0 / 2<' in html
    assert f'hx-get="/evaluations/{evaluation.pk}/" hx-trigger="every 1s"' in html
    assert "What is the price of a cup of coffee in Vienna?" in html and "two percent" in html


def test_the_worker_runs_it_to_done_and_the_page_shows_its_charts(logged_in_client, library, queued):
    post(logged_in_client, library)
    evaluation = evaluations.run_evaluation(queued[0])
    assert evaluation is not None and evaluation.status == "done"
    assert evaluation.summary["questions"] == 2 and evaluation.summary["gold_quotes_found"] == 1
    assert evaluation.progress["stage"] == "done" and evaluation.progress["done"] == 2
    assert evaluations.run_evaluation(queued[0]) is None  # a second delivery of the task does nothing
    html = logged_in_client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    assert "hx-get" not in html and 'id="progress"' not in html  # no more polling
    assert "Recall funnel" in html and "Reliability" in html and 'id="summary"' in html
    for item in evaluation.items.all():
        assert f'href="/runs/{item.run_id}/"' in html
    fragment = logged_in_client.get(f"/evaluations/{evaluation.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert fragment.startswith('\n<div id="live" data-status="done"') and "<html" not in fragment


def test_the_command_line_goes_the_same_way(library, tmp_path, capsys):
    from django.core.management import call_command

    path = tmp_path / "gold.csv"
    path.write_bytes(CSV)
    call_command("evaluate", "papers", "--questions", str(path), "--collection", library.name,
                 "--system", "single_pass", verbosity=0)  # fmt: skip
    evaluation = Evaluation.objects.get()
    assert evaluation.label == "gold.csv" and len(evaluation.questions) == 2 and evaluation.status == "done"
    assert evaluation.progress["stage"] == "done"


def test_the_command_line_can_queue_it_for_a_worker_as_the_page_does(library, queued, tmp_path, capsys):
    from django.core.management import call_command

    path = tmp_path / "gold.csv"
    path.write_bytes(CSV)
    call_command("evaluate", "papers", "--questions", str(path), "--collection", library.name, "--background",
                 verbosity=0)  # fmt: skip
    evaluation = Evaluation.objects.get()
    assert json.loads(capsys.readouterr().out) == {"evaluation": evaluation.pk, "status": "queued"}
    assert queued == [evaluation.pk] and evaluation.status == "queued" and evaluation.label == "gold.csv"


def test_bad_rows_are_named_on_the_page_and_nothing_starts(logged_in_client, library, queued):
    data = b"question,answers\nFine?,yes\n,42\nNo answer?,\n"
    response = post(logged_in_client, library, data)
    html = response.content.decode()
    assert response.status_code == 400
    assert "Row 3 has no question." in html and "Row 4 has no answers" in html
    assert not Evaluation.objects.exists() and queued == []


def test_evidence_naming_a_paper_not_in_the_collection_is_refused(logged_in_client, library, queued):
    data = b'[{"question": "Q?", "answers": ["a"], "evidence": [{"docid": "nope", "quote": "x"}]}]'
    html = post(logged_in_client, library, data, name="set.json").content.decode()
    assert "The evidence names 1 document not in “Tiny” (nope)" in html and not Evaluation.objects.exists()


def test_an_oversized_upload_is_refused_before_it_is_read(logged_in_client, library, queued):
    response = post(logged_in_client, library, b"question,answers\n" + b"Why?,because\n" * 100_000)
    assert response.status_code == 413 and "over the limit of 1024 KB for a question set" in response.content.decode()
    assert not Evaluation.objects.exists()


def test_one_evaluation_runs_at_a_time(logged_in_client, library, queued):
    post(logged_in_client, library)
    response = post(logged_in_client, library)
    assert response.status_code == 400
    assert f"Evaluation #{queued[0]} is still running" in response.content.decode()


def test_a_queue_that_is_down_leaves_no_evaluation(logged_in_client, library, monkeypatch):
    from celery import current_app

    def down(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(current_app, "send_task", down)
    response = post(logged_in_client, library)
    assert response.status_code == 400 and "The job queue is unavailable" in response.content.decode()
    assert not Evaluation.objects.exists()


def test_the_list_offers_the_form_and_a_compare_picker(logged_in_client, user, library, queued):
    html = logged_in_client.get("/evaluations/").content.decode()
    assert 'enctype="multipart/form-data"' in html and f'<option value="{library.pk}"' in html
    assert 'id="compare-picker"' not in html  # nothing to compare yet
    first = evaluations.start_evaluation(user, library, "dual", [ONE], label="a.csv")
    Evaluation.objects.filter(pk=first.pk).update(status="done")
    second = evaluations.start_evaluation(user, library, "single_pass", first.questions, label="a.csv")
    html = logged_in_client.get("/evaluations/").content.decode()
    assert 'id="compare-picker"' in html
    assert f'<option value="{first.pk}" selected>#{first.pk} a.csv · dual · Tiny' in html  # A: the older
    assert f'<option value="{second.pk}" selected>#{second.pk} a.csv · single_pass · Tiny' in html  # B: the newer


def test_two_sets_numbered_alike_are_not_paired(logged_in_client, user, library, queued):
    made = []
    for question in ("First set's question?", "Another question?"):
        e = evaluations.start_evaluation(user, library, "dual", [{**ONE, "question": question}])
        EvaluationItem.objects.create(evaluation=e, qid="q1", metrics={"answer_strict": 1.0, "latency_s": 0.1})
        Evaluation.objects.filter(pk=e.pk).update(status="done")
        made.append(e)
    html = logged_in_client.get(f"/evaluations/compare?a={made[0].pk}&b={made[1].pk}").content.decode()
    assert "A and B asked no question in common" in html


@pytest.mark.parametrize("path", ["/evaluations/{pk}/", "/evaluations/compare?a={pk}&b={pk}"])
def test_another_users_evaluation_is_a_404(client, other_user, user, library, queued, path):
    evaluation = evaluations.start_evaluation(user, library, "dual", [ONE])
    client.force_login(other_user)
    assert client.get(path.format(pk=evaluation.pk)).status_code == 404
    assert client.get(path.format(pk=evaluation.pk), HTTP_HX_REQUEST="true").status_code == 404
    html = client.get("/evaluations/").content.decode()
    assert "No evaluations yet" in html and "Q?" not in html


def test_another_users_collection_is_no_choice(client, other_user, library, queued):
    Collection.objects.create(owner=other_user, name="Mine")
    client.force_login(other_user)
    response = post(client, library)
    assert response.status_code == 400 and "Select a valid choice" in response.content.decode()
    assert not Evaluation.objects.exists() and queued == []
