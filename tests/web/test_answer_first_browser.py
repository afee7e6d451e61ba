"""In Chromium at a laptop's and a phone's size: the run page leads with the short answer (above the fold, nothing
wider than the screen), says plainly when there is none, keeps the research folded below; Compare leads with its
verdict; "Ask again" opens the question as it was asked."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.answer_runs import paper, paper_run
from tests.web.test_pages_browser import login
from tests.web.test_responsive_browser import OVERFLOWING

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def shot(page: Page, name: str, copy_to: str = "") -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if copy_to:
        shutil.copy(path, copy_to)


def above_the_fold(page: Page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (360, 740)])
def test_the_answer_comes_first(page: Page, asgi_server, user, collection, session_cookie, width, height):
    document = paper(collection)
    run = paper_run(user, collection, document)
    login(page, asgi_server, session_cookie)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{asgi_server}/runs/{run.pk}/")

    expect(page.locator("#short-answer .short-text")).to_have_text("280M")
    expect(page.locator("#short-answer .confidence")).to_have_text("likely right, 82%")
    assert above_the_fold(page, "#short-answer .short-text") and above_the_fold(page, "#short-answer .confidence")
    expect(page.locator("#short-answer .source-sentence mark.short-answer")).to_have_text("280M")
    # The answer, then the evidence, then the research: in that order on the screen at every width.
    tops = [page.locator(s).bounding_box()["y"] for s in ("h1", "#short-answer", "ol.evidence", "#research")]
    assert tops == sorted(tops), tops
    expect(page.locator("#research")).not_to_have_attribute("open", "")
    expect(page.locator("#run-status")).to_be_hidden()  # the status and the steps are folded with the research
    assert page.evaluate(OVERFLOWING) == []

    sentences = page.locator("ol.evidence blockquote").all_inner_texts()
    assert len(sentences) == 3 and all(s.rstrip().endswith(".") for s in sentences), sentences
    whole = "Although participants were exposed to the graph during the study, most of them never opened it."
    assert sentences[2] == whole, "a span cut mid-sentence is shown in its whole sentence"
    assert not any(glyph in "".join(sentences) for glyph in "•¹"), sentences
    expect(page.locator("body")).not_to_contain_text("OPENAI_API_KEY")
    shot(page, f"run-answer-first-{width}", copy_to=f"/tmp/run_{width}.png")

    # The steps read with their counts once the research is unfolded.
    page.locator("#research > summary").click()
    headlines = page.locator("#timeline .headline").all_inner_texts()
    assert "Planned 1 sub-question and 2 search queries, 1 of them searched" in headlines, headlines
    assert "Chose to read 1 paper whole, sentence by sentence" in headlines
    assert f"The fast reader judged “{document.title}” relevant (82%)" in headlines
    expect(page.locator("li.step-paper_reading")).to_contain_text("The fast reader read 412 sentences of 1 paper")
    expect(page.locator("li.step-reader")).to_contain_text("Paper: Construction of the Literature Graph")
    expect(page.locator("#metrics")).not_to_contain_text("Spent")
    assert page.evaluate(OVERFLOWING) == []


@pytest.mark.parametrize("outcome", ["no_short_answer", "not_found"])
def test_no_guess_is_shown_as_an_answer(page: Page, asgi_server, user, collection, session_cookie, outcome):
    document = paper(collection)
    run = paper_run(user, collection, document, outcome=outcome, confidence=0.38, candidate="three tasks")
    login(page, asgi_server, session_cookie)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{asgi_server}/runs/{run.pk}/")
    lead = page.locator("#short-answer")
    shot(page, f"run-{outcome}-360")
    assert above_the_fold(page, "#short-answer .short-text")
    if outcome == "no_short_answer":
        expect(lead.locator(".short-text")).to_have_text("No short answer")
        expect(lead).to_contain_text("The papers don't state this clearly enough to answer.")
        expect(page.locator("#rejected-guess")).to_be_hidden()  # folded in the research details, named a rejected guess
        page.locator("#research > summary").click()
        expect(page.locator("#rejected-guess")).to_contain_text("Rejected guess: “three tasks”")
    else:
        expect(lead.locator(".short-text")).to_have_text("Not found in this collection")
        expect(page.locator("#answer h3.evidence-head")).to_contain_text("Closest evidence")
    expect(page.locator("#answer")).not_to_contain_text("three tasks")
    expect(page.locator("#answer mark")).to_have_count(0)
    expect(page.locator("#answer .confidence")).to_have_count(0)


def test_compare_leads_with_a_verdict(page: Page, asgi_server, user, collection, session_cookie):
    document = paper(collection)
    a = paper_run(user, collection, document)
    b = paper_run(user, collection, document, system="single_pass", confidence=0.93)
    c = paper_run(user, collection, document, outcome="no_short_answer", question="How many edges does it have?")
    login(page, asgi_server, session_cookie)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{asgi_server}/compare?a={a.pk}&b={b.pk}")
    sides = page.locator("#verdict .verdict-side")
    expect(sides.nth(0)).to_contain_text("280M")
    expect(sides.nth(0)).to_contain_text("likely right, 82%")
    expect(sides.nth(1)).to_contain_text("very likely right, 93%")
    expect(page.locator("#agreement")).to_contain_text("They agree")
    expect(page.locator("#both-cite")).to_contain_text("Both runs cite 3 spans")
    assert above_the_fold(page, "#agreement")
    assert page.evaluate(OVERFLOWING) == []
    shot(page, "compare-verdict", copy_to="/tmp/compare.png")
    # Pickers name runs by their question and system, not "#7 dual".
    expect(page.locator("#run-a option:checked")).to_contain_text("Dual (planner + System 1 judge)")
    page.goto(f"{asgi_server}/compare?a={a.pk}&b={c.pk}")
    expect(sides.nth(1).locator(".short-text")).to_have_text("No short answer")
    expect(page.locator("#one-sided")).to_contain_text("Only one run gives a short answer")


def test_ask_again_is_filled_in(page: Page, asgi_server, user, collection, session_cookie):
    document = paper(collection)
    run = paper_run(user, collection, document, system="single_pass",
                    config={"searcher": "bm25", "scope_docids": [document.docid]})  # fmt: skip
    login(page, asgi_server, session_cookie)
    page.goto(f"{asgi_server}/runs/{run.pk}/")
    page.click("#ask-again")
    page.wait_for_url("**/ask?*")
    expect(page.locator("#id_question")).to_have_value(run.question)
    expect(page.locator("#id_system")).to_have_value("single_pass")
    expect(page.locator("#id_searcher")).to_have_value("bm25")
    expect(page.locator(f"#doc-chips .chip[data-docid='{document.docid}']")).to_be_visible()
    assert page.input_value("#id_documents") == document.docid
