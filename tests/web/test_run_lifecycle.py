"""The runs service from the pages: the Ask page refuses what the API refuses, within the same quota, and a run
can be cancelled from its page."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from evidence.models import Collection, Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", calls.append)
    return calls


def ask_page(client, collection, question="Does caffeine delay sleep?", documents=""):
    return client.post(
        "/ask",
        {
            "collection": collection.pk,
            "question": question,
            "system": "dual",
            "searcher": "hybrid",
            "task": "qa",
            "documents": documents,
        },
    )


def ask_api(client, collection, question="Does caffeine delay sleep?", documents=()):
    return client.post(
        "/api/runs",
        {"collection_id": collection.pk, "question": question, "documents": list(documents)},
        content_type="application/json",
    )


@pytest.mark.parametrize("case", ["empty collection", "unknown document"])
def test_the_page_and_the_api_refuse_a_bad_run_for_the_same_reason(logged_in_client, user, document, sent, case):
    collection = document.collection
    documents = ["nope"] if case == "unknown document" else []
    if case == "empty collection":
        collection = Collection.objects.create(owner=user, name="Empty")
    api = ask_api(logged_in_client, collection, documents=documents)
    page = ask_page(logged_in_client, collection, documents=",".join(documents))
    assert api.status_code == 400 and page.status_code == 400
    assert escape(api.json()["detail"]) in page.content.decode()
    assert not Run.objects.exists() and sent == []


def test_the_ask_page_keeps_the_same_quota_as_the_api(logged_in_client, document, sent, settings):
    settings.EVIDENCE_MAX_ACTIVE_RUNS_PER_USER = 1
    assert ask_page(logged_in_client, document.collection).status_code == 302
    page = ask_page(logged_in_client, document.collection)
    api = ask_api(logged_in_client, document.collection)
    assert page.status_code == 429 and api.status_code == 429
    assert escape(api.json()["detail"]) in page.content.decode()
    assert Run.objects.count() == 1 and len(sent) == 1


def test_a_run_is_cancelled_from_its_page_and_another_users_run_is_404(logged_in_client, run, client, other_user):
    page = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="cancel-run"' in page
    assert logged_in_client.post(f"/runs/{run.pk}/cancel").status_code == 302
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert 'id="cancel-run"' not in logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    client.force_login(other_user)
    assert client.post(f"/runs/{run.pk}/cancel").status_code == 404


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_cancel_button_on_the_run_page_cancels_the_run_in_chromium(page, asgi_server, session_cookie, run):
    from playwright.sync_api import expect

    page.context.add_cookies([{"name": "sessionid", "value": session_cookie["sessionid"], "url": asgi_server}])
    page.goto(f"{asgi_server}/runs/{run.pk}/")  # queued: no worker takes it in this test
    page.click("#cancel-run button")
    expect(page.locator("#run-page")).to_have_attribute("data-status", "cancelled")
    expect(page.locator("#cancel-run")).to_have_count(0)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
