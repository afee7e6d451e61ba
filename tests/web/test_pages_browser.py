"""In Chromium: the picker limits a run to one real paper, the stream reads plainly, compare marks a disagreement."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evidence.models import IngestFile, IngestJob, Run
from evidence.retrieval import index_store
from tests.web.pdf_runs import ingest_pdf

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
NO_SIDEWAYS = "document.scrollingElement.scrollWidth <= innerWidth"


def shot(page: Page, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def login(page: Page, base: str, session_cookie: dict[str, str]) -> None:
    page.context.add_cookies([{"name": "sessionid", "value": session_cookie["sessionid"], "url": base}])
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(20_000)


def test_the_picker_limits_a_run(page: Page, asgi_server, celery_worker, user, collection, shared_data,
                                 session_cookie, settings, tmp_path):
    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    papers = [ingest_pdf(collection, shared_data, name) for name in ("N18-3011.pdf", "2020.acl-main.207.pdf")]
    index_store.add_documents(collection.pk, [d.pk for d in papers])
    chosen = papers[0]
    login(page, asgi_server, session_cookie)

    page.goto(f"{asgi_server}/ask?collection={collection.pk}")
    page.fill("#id_question", "How many author nodes does the literature graph have?")
    page.select_option("#id_system", "single_pass")
    page.select_option("#id_searcher", "bm25")
    page.locator("#doc-search").press_sequentially("literature graph", delay=20)
    pick = page.locator(f"#doc-results button.pick[data-docid='{chosen.docid}']")
    expect(pick).to_be_visible()
    expect(page.locator("#doc-results button.pick")).to_have_count(1)  # the other paper's title does not match
    pick.click()
    expect(page.locator(f"#doc-chips .chip[data-docid='{chosen.docid}']")).to_be_visible()
    assert page.input_value("#id_documents") == chosen.docid
    expect(page.locator("#doc-results button.pick")).to_have_count(0)
    shot(page, "ask-picker", full=False)
    page.click("button:has-text('Ask')")
    page.wait_for_url("**/runs/*/")
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.config["scope_docids"] == [chosen.docid]
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=60_000)
    searched = [hit["docid"] for e in run.events.filter(kind="search") for hit in e.payload.get("top", [])]
    assert searched and set(searched) == {chosen.docid}
    page.click("#research > summary")  # the research is folded below the answer once the run ended
    expect(page.locator("li.step[data-kind='search'] .headline").first).to_contain_text("Searched “")
    shot(page, "run-plain-steps")
    page.check("input[name=step-filter][value=search]")
    expect(page.locator("li.step[data-kind='finished']")).to_be_hidden()
    expect(page.locator("li.step[data-kind='search']").first).to_be_visible()
    shot(page, "run-filter-searches", full=False)

    # A follow-up keeps the paper it was limited to, and the two runs read as one thread.
    page.fill("#follow-up-question", "How many paper nodes does it have?")
    page.click("#follow-up button:has-text('Ask the follow-up')")
    page.wait_for_url(lambda url: url.rstrip("/").rsplit("/", 1)[1] not in ("", str(run.pk)))
    child = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert child.follows_id == run.pk and child.config["scope_docids"] == [chosen.docid]
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=60_000)
    expect(page.locator("#thread li")).to_have_count(2)
    expect(page.locator("#thread li[aria-current=step]")).to_contain_text("How many paper nodes does it have?")
    searched = [hit["docid"] for e in child.events.filter(kind="search") for hit in e.payload.get("top", [])]
    assert searched and set(searched) == {chosen.docid}
    plan = child.events.get(kind="plan").payload
    assert "literature graph" in plan["sub_questions"][0].lower(), plan
    shot(page, "run-follow-up", full=False)


def test_compare_and_the_small_things(page: Page, asgi_server, user, collection, document, run_factory,
                                      session_cookie):
    a = run_factory(user, collection, document, system="dual")
    b = run_factory(user, collection, document, question="How long does caffeine delay sleep?",
                    system="single_pass", quote="Caffeine blocks adenosine receptors.")
    for run, exact in ((a, "About an hour"), (b, "Two hours")):
        run.answer = {**run.answer, "exact_answer": exact}
        run.save(update_fields=["answer"])
    login(page, asgi_server, session_cookie)

    page.goto(f"{asgi_server}/compare?a={a.pk}&b={b.pk}")
    expect(page.locator("#disagreement")).to_contain_text("The two runs disagree")
    expect(page.locator("#cites-only_a .supports-answer")).to_contain_text("About an hour")
    expect(page.locator("#cites-only_b .supports-answer")).to_contain_text("states neither")
    expect(page.locator("#differences")).to_contain_text("They answer different questions")
    shot(page, "compare-disagree")

    # The answer taken away: copied as Markdown to the clipboard, the same text the download gives.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=asgi_server)
    page.goto(f"{asgi_server}/runs/{a.pk}/")
    page.click("#export button:has-text('Copy as Markdown')")
    expect(page.locator("#export .copied")).to_have_text("Answer copied as Markdown.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("# Does caffeine delay sleep?") and "> It delays sleep onset by about an hour." in copied
    assert copied == page.request.get(f"{asgi_server}/runs/{a.pk}/export.md").text()
    page.click("#export button:has-text('Copy link')")
    assert page.evaluate("navigator.clipboard.readText()") == f"{asgi_server}/runs/{a.pk}/"
    shot(page, "run-export", full=False)

    # A very long file name wraps on the upload page instead of widening it.
    job = IngestJob.objects.create(owner=user, collection=collection, status=IngestJob.Status.DONE, files_total=1,
                                   files_done=1)
    IngestFile.objects.create(job=job, name="a-very-long-file-name-" * 12 + ".pdf", status=IngestFile.Status.DONE)
    page.goto(f"{asgi_server}/uploads/{job.pk}/")
    assert page.evaluate(NO_SIDEWAYS)
    shot(page, "job-long-name", full=False)

    page.goto(f"{asgi_server}/keys/")
    page.fill("#id_name", "notebook on the lab server with a rather long descriptive name")
    page.click("button:has-text('Create key')")
    expect(page.locator("table.keys-table tbody tr")).to_have_count(1)
    assert page.evaluate(NO_SIDEWAYS)
    shot(page, "keys", full=False)

    # Keyboard users skip the navigation; the API docs lead back to the app.
    page.goto(f"{asgi_server}/runs/")
    page.keyboard.press("Tab")
    expect(page.locator("a.skip-link")).to_be_focused()
    page.goto(f"{asgi_server}/api/docs")
    expect(page.locator("#back-to-app")).to_be_visible()
    expect(page.locator(".swagger-ui .info").first).to_be_visible()
    shot(page, "api-docs", full=False)
    page.click("#back-to-app")
    expect(page.locator("h1")).to_have_text("Your research desk")
