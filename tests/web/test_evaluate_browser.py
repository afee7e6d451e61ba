"""In Chromium: a CSV of three questions about a tiny collection uploaded on the Evaluations page, evaluated by the
worker with its progress counted live, then its summary and charts, and two evaluations compared from the list."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.ingesting import ingest_now
from tests.web.test_evaluate_upload import DOCS
from tests.web.test_pages_browser import NO_SIDEWAYS, login, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

CSV = (
    "question,answers,evidence\n"
    "By how much did aerobic walking increase hippocampal volume in older adults?,two percent | 2%,"
    "aerobic walking increased hippocampal volume by two percent\n"
    "How much did caffeine taken before bedtime reduce total sleep time?,more than one hour | over an hour,"
    "reduced total sleep time by more than one hour\n"
    "What is the price of a cup of coffee in Vienna?,unanswerable,\n"
)
SCREENSHOT = "/tmp/eval_browser.png"


def evaluate_from_the_page(page: Page, base: str, path, system: str) -> list[str]:
    """Upload the set, start it with `system`, and return the progress counts the page showed until it ended."""
    page.goto(f"{base}/evaluations/")
    page.set_input_files("#id_questions", str(path))
    page.select_option("#id_collection", label="Tiny")
    page.select_option("#id_system", system)
    page.click("button:has-text('Start the evaluation')")
    page.wait_for_url(re.compile(r".*/evaluations/\d+/$"))
    seen, deadline = [], time.monotonic() + 180
    while page.locator("#live").get_attribute("data-status") not in {"done", "stopped", "failed"}:
        assert time.monotonic() < deadline, f"the evaluation did not end; the page showed {seen}"
        counts = page.locator("#progress-count").all_inner_texts()
        if counts and not seen:
            shot(page, f"evaluation-progress-{system}", full=False)
        seen += [t for t in counts if t not in seen]
        page.wait_for_timeout(100)
    return seen


def test_a_question_set_evaluated_from_the_browser(page: Page, asgi_server, celery_worker, user, collection,
                                                    session_cookie, settings, tmp_path):  # fmt: skip
    settings.DATA_DIR = tmp_path
    ingest_now(collection, DOCS.items())
    path = tmp_path / "three questions.csv"
    path.write_text(CSV)
    login(page, asgi_server, session_cookie)

    seen = evaluate_from_the_page(page, asgi_server, path, "dual")
    assert seen and all(re.fullmatch(r"[0-3] / 3", t) for t in seen), seen  # counted live, out of three
    expect(page.locator("#evaluation-status")).to_have_text("Done")
    expect(page.locator("#progress")).to_have_count(0)
    expect(page.locator("#summary")).to_contain_text("questions")
    expect(page.locator("#summary tr", has_text="gold_quotes_found")).to_contain_text("2")
    expect(page.locator("svg.funnel-chart")).to_be_visible()
    expect(page.locator("svg.reliability-chart")).to_be_visible()
    rows = page.locator("#questions tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("two percent")
    expect(rows.nth(0).locator("a", has_text="run")).to_have_count(1)
    assert page.evaluate(NO_SIDEWAYS)
    page.screenshot(path=SCREENSHOT, full_page=True)
    shot(page, "evaluation-from-the-browser")

    # A second system over the same questions, then the two compared from the list's picker.
    evaluate_from_the_page(page, asgi_server, path, "single_pass")
    page.goto(f"{asgi_server}/evaluations/")
    expect(page.locator("#evaluations tbody tr")).to_have_count(2)
    expect(page.locator("#ea option:checked")).to_contain_text("three questions.csv · dual · Tiny")
    expect(page.locator("#eb option:checked")).to_contain_text("three questions.csv · single_pass · Tiny")
    assert page.evaluate(NO_SIDEWAYS)
    shot(page, "evaluations-list")
    page.click("button:has-text('Compare A and B')")
    expect(page.locator("#compared")).to_contain_text("dual")
    expect(page.locator("h2", has_text="paired by question")).to_contain_text("3 questions")
    expect(page.locator("svg.funnel-chart")).to_be_visible()
    shot(page, "evaluations-compared")

    # A set with a bad row is refused on the page, the row named.
    bad = tmp_path / "bad.csv"
    bad.write_text("question,answers\nFine?,yes\n,42\n")
    page.goto(f"{asgi_server}/evaluations/")
    page.set_input_files("#id_questions", str(bad))
    page.click("button:has-text('Start the evaluation')")
    expect(page.locator("#questions-errors")).to_have_text("Row 3 has no question.")
