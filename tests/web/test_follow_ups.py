"""Follow-up questions: same collection and documents, linked as a thread, read in the light of the thread."""

from __future__ import annotations

import pytest

from evidence.answers.layer import NO_SHORT_ANSWER
from evidence.models import Run
from evidence.run_state import RunConfig
from evidence.services import runs
from evidence.text.question_plan import in_context, make_plan

pytestmark = pytest.mark.django_db

EARLIER = [("Which model does the paper propose for document embeddings?", "SPECTER")]


@pytest.fixture
def queued(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", calls.append)
    return calls


def test_a_follow_up_that_points_back_is_searched_with_the_threads_words():
    planned = make_plan("How was it trained?", EARLIER)
    assert planned.queries[0].split()[:2] == ["trained", "SPECTER"], "the last answer's words come first"
    assert "document" in planned.queries[0] and "embeddings" in planned.queries[0]
    assert planned.sub_questions[0].startswith("How was it trained? (SPECTER")
    assert in_context("What about its recall?", EARLIER).endswith("(SPECTER model document embeddings)")


def test_a_yes_or_no_answer_lends_no_words():
    assert in_context("By how much does it delay it?", [("Does caffeine delay sleep onset?", "Yes")]) == (
        "By how much does it delay it? (caffeine sleep onset)"
    )


def test_a_self_contained_question_is_planned_as_if_asked_alone():
    question = "How many citation triplets were used to train SPECTER?"
    assert make_plan(question, EARLIER) == make_plan(question)
    assert in_context("How was it trained?", []) == "How was it trained?"


def test_the_follow_up_keeps_the_scope_and_carries_the_thread(user, collection, document, run_factory):
    parent = run_factory(user, collection, document)
    parent.config = {"searcher": "bm25", "scope_docids": [document.docid], "replay_of": 3}
    parent.save(update_fields=["config"])
    config = runs.follow_up_config(parent)
    assert config.searcher == "bm25" and config.scope_docids == [document.docid] and config.replay_of is None
    assert [(t.question, t.answer) for t in config.earlier] == [("Does caffeine delay sleep?", "Yes")]
    parent.config = {**parent.config, "earlier": [{"question": f"q{i}", "answer": ""} for i in range(3)]}
    parent.save(update_fields=["config"])
    assert [t.question for t in runs.follow_up_config(parent).earlier] == ["q1", "q2", "Does caffeine delay sleep?"]


def test_a_withheld_short_answer_is_not_passed_on(user, collection, document, run_factory):
    parent = run_factory(user, collection, document)
    parent.answer = {**parent.answer, "exact_answer": NO_SHORT_ANSWER}
    parent.save(update_fields=["answer"])
    assert runs.follow_up_config(parent).earlier[0].answer == ""


def test_the_run_page_asks_a_follow_up_and_shows_the_thread(
    logged_in_client, user, collection, document, run_factory, queued, django_capture_on_commit_callbacks
):
    parent = run_factory(user, collection, document)
    page = logged_in_client.get(f"/runs/{parent.pk}/").content.decode()
    assert f'action="/runs/{parent.pk}/follow-up"' in page and 'id="thread"' not in page
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in_client.post(f"/runs/{parent.pk}/follow-up", {"question": "  How long does it last? "})
    child = Run.objects.exclude(pk=parent.pk).get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{child.pk}/"
    assert (child.follows_id, child.collection_id, child.system, child.question) == (
        parent.pk,
        parent.collection_id,
        parent.system,
        "How long does it last?",
    )
    assert RunConfig.of(child).earlier[0].question == parent.question and queued == [child.pk]
    for run in (parent, child):
        html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
        assert 'id="thread"' in html and "How long does it last?" in html and "Does caffeine delay sleep?" in html
    assert 'aria-current="step"><strong>How long does it last?' in html


def test_a_follow_up_needs_a_question_and_your_own_run(
    client, logged_in_client, other_user, user, collection, document, run_factory, queued
):
    parent = run_factory(user, collection, document)
    response = logged_in_client.post(f"/runs/{parent.pk}/follow-up", {"question": "   "}, follow=True)
    assert "Type the follow-up question first." in response.content.decode()
    too_long = logged_in_client.post(f"/runs/{parent.pk}/follow-up", {"question": "x" * 2001}, follow=True)
    assert "at most 2,000 characters" in too_long.content.decode()
    client.force_login(other_user)
    assert client.post(f"/runs/{parent.pk}/follow-up", {"question": "Mine now?"}).status_code == 404
    assert Run.objects.count() == 1 and queued == []


def test_the_api_asks_a_follow_up(user, collection, document, run_factory, queued, django_capture_on_commit_callbacks):
    from django.test import Client

    from evidence.auth_keys import create_key

    api = Client(HTTP_AUTHORIZATION=f"Bearer {create_key(user, 'tests')[1]}")
    parent = run_factory(user, collection, document)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/runs/{parent.pk}/follow-up",
            {"question": "And how long?"},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="k1",
        )
    assert response.status_code == 201 and response.json()["follows"] == parent.pk
    assert response.json()["config"]["earlier"] == [{"question": parent.question, "answer": "Yes"}]
    again = api.post(
        f"/api/runs/{parent.pk}/follow-up",
        {"question": "And how long?"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k1",
    )
    assert again.status_code == 201 and again.json()["id"] == response.json()["id"]
    assert (
        api.post(f"/api/runs/{parent.pk}/follow-up", {"question": ""}, content_type="application/json").status_code
        == 422
    )
    assert api.get(f"/api/runs/{parent.pk}").json()["follows"] is None
