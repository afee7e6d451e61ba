"""The ask form: owner's collections only, a run is created and queued at commit, then the run page."""

from __future__ import annotations

import pytest

from evidence.models import Collection, Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", calls.append)
    return calls


def test_it_shows_only_my_collections(logged_in_client, collection, other_user):
    Collection.objects.create(owner=other_user, name="Mallory's secrets")
    response = logged_in_client.get("/ask")
    assert response.status_code == 200
    assert b"Tiny" in response.content
    assert b"Mallory" not in response.content


def test_it_creates_a_run_and_queues_it(logged_in_client, document, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in_client.post(
            "/ask",
            {
                "collection": document.collection_id,
                "question": " Does it? ",
                "system": "pi_serini",
                "searcher": "bm25",
                "task": "qa",
            },
        )
    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{run.pk}/"
    assert (run.question, run.system, run.status) == ("Does it?", "pi_serini", "queued")
    assert run.config == {"searcher": "bm25"}
    assert queued == [run.pk]


def test_it_refuses_another_users_collection(logged_in_client, document, other_user, queued):
    theirs = Collection.objects.create(owner=other_user, name="Theirs")
    response = logged_in_client.post(
        "/ask", {"collection": theirs.pk, "question": "Q?", "system": "dual", "searcher": "hybrid", "task": "qa"}
    )
    assert response.status_code == 400
    assert not Run.objects.exists()


def test_it_refuses_an_empty_collection(logged_in_client, collection, queued):
    response = logged_in_client.post(
        "/ask", {"collection": collection.pk, "question": "Q?", "system": "dual", "searcher": "hybrid", "task": "qa"}
    )
    assert response.status_code == 400
    assert b"no documents yet" in response.content


def test_it_defaults_to_the_dual_system(logged_in_client, collection):
    response = logged_in_client.get("/")
    assert b'<option value="dual" selected>' in response.content


def test_it_limits_a_run_to_documents(logged_in_client, document, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in_client.post(
            "/ask",
            {
                "collection": document.collection_id,
                "question": "Q?",
                "system": "dual",
                "searcher": "hybrid",
                "task": "qa",
                "documents": " caffeine , ",
            },
        )
    assert response.status_code == 302
    assert Run.objects.get().config == {"searcher": "hybrid", "scope_docids": ["caffeine"]}


def test_it_refuses_documents_outside_the_collection_and_says_which(logged_in_client, document, queued):
    response = logged_in_client.post(
        "/ask",
        {
            "collection": document.collection_id,
            "question": "Q?",
            "system": "dual",
            "searcher": "hybrid",
            "task": "qa",
            "documents": "caffeine, <b>ghost</b>",
        },
    )
    assert response.status_code == 400
    assert b"&lt;b&gt;ghost&lt;/b&gt;" in response.content and b"<b>ghost" not in response.content
    assert not Run.objects.exists()


def test_the_document_page_offers_to_ask_about_it(logged_in_client, document):
    page = logged_in_client.get(f"/documents/{document.pk}/").content.decode()
    link = f"/ask?collection={document.collection_id}&amp;documents=caffeine"
    assert link in page
    form = logged_in_client.get(f"/ask?collection={document.collection_id}&documents=caffeine").content.decode()
    assert 'value="caffeine"' in form
