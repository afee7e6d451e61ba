"""The audit fits the screen at 1366 and 360 px: the PDF page fitted to its pane with the span in view on open,
the text pane beside it (below it on a phone) holding only the paragraphs around the span, more on demand."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.pdf_runs import ingest_pdf, pdf_run
from tests.web.test_responsive_browser import OVERFLOWING

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
LOADED = "Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
# Where the span's boxes on the page, the page pane and the highlight in the text are, in CSS px of the window.
GEOMETRY = """() => {
  const box = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const rects = Array.from(document.querySelectorAll('svg.span-boxes rect')).map(box);
  const pane = document.querySelector('#page-scroll'), img = document.querySelector('figure.pdf-page img');
  const style = getComputedStyle(pane);
  return {rects, pane: box(pane), mark: box(document.querySelector('mark#span')),
          text: box(document.querySelector('.doc-text')),
          fit: [img.getBoundingClientRect().width,
                pane.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)],
          view: [innerWidth, innerHeight], height: document.documentElement.scrollHeight};
}"""
# The text pane's characters of the paper: the page labels and the "show more" links are not the paper's.
PANE_TEXT = """() => {
  const copy = document.querySelector('.doc-text').cloneNode(true);
  copy.querySelectorAll('.page-break, .more-text').forEach((el) => el.remove());
  return copy.textContent;
}"""


def inside(inner: list[float], outer: list[float], slack: float = 1.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def open_audit(page: Page, asgi_server: str, run, session_cookie, width: int, height: int) -> dict:
    page.context.add_cookies([{"name": "sessionid", "value": session_cookie["sessionid"], "url": asgi_server}])
    page.set_viewport_size({"width": width, "height": height})
    span = run.citations.order_by("answer_part").first().span
    page.goto(f"{asgi_server}/runs/{run.pk}/audit?span={span.pk}#span")  # as the run page links it
    expect(page.locator("figure.pdf-page img")).to_have_count(1)
    page.wait_for_function(LOADED)
    page.wait_for_timeout(150)  # the load handler's scroll
    return page.evaluate(GEOMETRY)


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (360, 740)])
def test_the_audit_opens_on_the_span_and_fits_the_screen(
    page: Page,
    asgi_server,
    user,
    collection,
    shared_data,
    run_factory,
    session_cookie,
    settings,
    tmp_path,
    width,
    height,
):
    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    document = ingest_pdf(collection, shared_data)
    run = pdf_run(user, collection, document, run_factory)
    at = open_audit(page, asgi_server, run, session_cookie, width, height)
    screen = [0, 0, width, height]
    page.screenshot(path=f"/tmp/audit_{width}.png")
    page.screenshot(path=f"/tmp/audit_{width}_full.png", full_page=True)
    print(f"audit at {width}x{height}: {at['height']} px tall")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"audit-fit-{width}.png"))

    # The page fitted to its pane's width, every box of the span on the screen and inside the pane's visible area.
    assert at["fit"][0] == pytest.approx(at["fit"][1], abs=1.5), at["fit"]
    expect(page.locator(".zoom-level")).to_have_text("fit width")
    assert at["rects"] and all(inside(r, screen) and inside(r, at["pane"]) for r in at["rects"]), at
    assert page.evaluate(OVERFLOWING) == []
    if width >= 1000:
        # The text pane beside the page, its highlight in view; the whole audit is one screen.
        assert at["text"][0] >= at["pane"][2], "the text is beside the page"
        assert inside(at["mark"], at["text"]) and inside(at["mark"], screen), at
        assert at["height"] <= height + 1, at["height"]
        expect(page.locator(".keys-hint")).to_be_visible()
    else:
        # The text below the page, the answer and its citations after them; a few screens, not the whole paper.
        assert at["text"][1] >= at["pane"][3], "the text is below the page"
        assert at["height"] < 10 * height, at["height"]
        expect(page.locator(".keys-hint")).to_be_hidden()
        assert page.evaluate("document.querySelector('#answer').getBoundingClientRect().top") > at["text"][3]

    # The text pane holds the paragraphs around the span, never the whole paper; the rest loads on demand until the
    # pane holds the paper's text exactly, with the one highlight still exactly the span.
    span = run.citations.order_by("answer_part").first().span
    shown = page.evaluate(PANE_TEXT)
    assert span.quote in shown and len(shown) < len(document.text) / 3
    assert document.text.index(shown) < span.start
    link = page.locator("a.more-text.before")
    link.scroll_into_view_if_needed()
    before = page.evaluate("document.querySelector('mark#span').getBoundingClientRect().top")
    link.click()
    page.wait_for_function(f"({PANE_TEXT})().length > {len(shown)}")
    if width >= 1000:  # what was in view stays in view, the earlier text above it
        moved = page.evaluate("document.querySelector('mark#span').getBoundingClientRect().top") - before
        assert abs(moved) < 40, moved
    page.screenshot(path=f"/tmp/audit_{width}_more.png")
    for direction in ("before", "after"):
        for _ in range(20):
            link = page.locator(f"a.more-text.{direction}")
            if not link.count():
                break
            count = len(page.evaluate(PANE_TEXT))
            link.click()
            page.wait_for_function(f"({PANE_TEXT})().length > {count}")
    assert page.evaluate(PANE_TEXT) == document.text
    expect(page.locator("mark#span")).to_have_count(1)
    assert page.locator("mark#span").text_content() == span.quote
