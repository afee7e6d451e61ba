"""In Chromium, through the worker: a question the paper answers shows its short answer inside its sentence; a
question it does not answer ends in its own "Not found" status, on the page, in the runs list and in the API."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evidence.models import Run
from evidence.retrieval import index_store
from tests.web.pdf_runs import ingest_pdf

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
ANSWERED = "How many papers are in the Semantic Scholar literature graph?"
ABSENT = "What dropout rate was used when training the ScienceParse BiLSTM-CRF metadata extraction model?"


def ask(page: Page, base: str, collection_pk: int, question: str) -> Run:
    page.goto(f"{base}/ask?collection={collection_pk}")
    page.fill("#id_question", question)
    page.select_option("#id_system", "dual")
    page.click("button:has-text('Ask')")
    page.wait_for_url("**/runs/*/")
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=120_000)
    return Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def test_answered_withheld_and_not_found_read_as_such(
    page: Page, asgi_server, celery_worker, user, collection, shared_data, session_cookie
):
    paper = ingest_pdf(collection, shared_data)
    index_store.add_documents(collection.pk, [paper.pk])
    page.context.add_cookies([{"name": "sessionid", "value": session_cookie["sessionid"], "url": asgi_server}])
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(30_000)

    run = ask(page, asgi_server, collection.pk, ANSWERED)
    assert run.status == Run.Status.ANSWERED, run.error
    expect(page.locator("#run-status")).to_have_text("Answered", use_inner_text=False)
    lead = page.locator("#short-answer")
    if run.answer["exact_answer"] == "No short answer found":
        expect(lead.locator(".short-text")).to_have_text("No short answer")
        expect(page.locator("#answer mark.short-answer")).to_have_count(0)
    else:
        expect(lead.locator(".short-text")).to_have_text(run.answer["exact_answer"])
        mark = lead.locator("mark.short-answer")
        expect(mark).to_have_text(run.answer["exact_answer"])
        lo, hi = run.answer["highlight"]
        assert run.answer["explanation"][lo:hi] == run.answer["exact_answer"]
        expect(lead.locator(".confidence")).to_contain_text("%")
    expect(page.locator("body")).not_to_contain_text("OPENAI_API_KEY")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "answer-short.png"), full_page=True)

    missing = ask(page, asgi_server, collection.pk, ABSENT)
    assert missing.status == Run.Status.NOT_FOUND, (missing.status, missing.answer.get("exact_answer"))
    expect(page.locator("#run-status")).to_have_text("Not found", use_inner_text=False)
    expect(page.locator("#short-answer .short-text")).to_have_text("Not found in this collection")
    expect(page.locator("#short-answer")).to_contain_text("do not answer this question")
    expect(page.locator("#answer mark.short-answer")).to_have_count(0)
    assert page.locator("ol.citations li").count() >= 1  # the closest evidence is still quoted
    page.screenshot(path=str(SHOTS / "answer-not-found.png"), full_page=True)

    page.goto(f"{asgi_server}/runs/")
    expect(page.locator(f"#runs-table a[href='/runs/{missing.pk}/']").locator("xpath=../..")).to_contain_text(
        "Not found"
    )
    api = page.request.get(f"{asgi_server}/api/runs/{missing.pk}/answer")
    assert api.ok
    body = api.json()
    assert (body["status"], body["outcome"], body["exact_answer"]) == (
        "not_found",
        "not_found",
        "Not found in this collection",
    )
    answered = page.request.get(f"{asgi_server}/api/runs/{run.pk}/answer").json()
    assert answered["status"] == "answered" and answered["outcome"] in {"short_answer", "no_short_answer"}
