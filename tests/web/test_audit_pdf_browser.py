"""In Chromium on a real paper: drawn boxes cover the span's glyphs, on both pages across a break; opens scrolled."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from playwright.sync_api import Page, expect

from evidence.models import SourceFile
from tests.web.pdf_runs import ingest_pdf, pdf_run

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

# Each drawn rect and its page image, in CSS pixels on the screen.
DRAWN = """() => Array.from(document.querySelectorAll('figure.pdf-page')).map(f => {
  const img = f.querySelector('img'), box = img.getBoundingClientRect();
  return {page: Number(f.dataset.page), img: [box.left, box.top, box.width, img.naturalWidth],
          rects: Array.from(f.querySelectorAll('rect')).map(r => {
            const b = r.getBoundingClientRect();
            return [Number(r.dataset.offset), Number(r.dataset.index), b.left, b.top, b.right, b.bottom];
          })};
})"""
VISIBLE = """([pane, target]) => {
  const p = document.querySelector(pane).getBoundingClientRect();
  const t = document.querySelector(target).getBoundingClientRect();
  return {scrolled: document.querySelector(pane).scrollTop, inside: t.top >= p.top && t.bottom <= p.bottom};
}"""


def check_boxes(page: Page, document, pdf: pdfium.PdfDocument) -> dict[int, int]:
    """Assert every drawn rect covers pdfium's own box of a glyph printing the span's character; count per page."""
    counts = {}
    for figure in page.evaluate(DRAWN):
        number = figure["page"]
        left0, top0, width, natural = figure["img"]
        scale = width / natural * 2.0  # CSS px per PDF point: the image is rendered at 2 px per point
        pdf_page = pdf[number - 1]
        textpage = pdf_page.get_textpage()
        height = pdf_page.get_height()
        for offset, index, x0, y0, x1, y1 in figure["rects"]:
            assert textpage.get_text_range(index, 1) == document.text[offset]
            left, bottom, right, top = textpage.get_charbox(index)
            glyph = (left0 + left * scale, top0 + (height - top) * scale, left0 + right * scale,
                     top0 + (height - bottom) * scale)
            slack = 0.6  # sub-pixel rounding of the layout
            assert x0 - slack <= glyph[0] and glyph[2] <= x1 + slack, (number, offset, glyph, (x0, x1))
            assert y0 - slack <= glyph[1] and glyph[3] <= y1 + slack, (number, offset, glyph, (y0, y1))
        counts[number] = len(figure["rects"])
    return counts


def test_the_pdf_page_shows_the_exact_span(page: Page, asgi_server, user, collection, shared_data, run_factory,
                                           session_cookie, settings, tmp_path):
    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    document = ingest_pdf(collection, shared_data)
    run = pdf_run(user, collection, document, run_factory)
    first, second = [c.span for c in run.citations.order_by("answer_part")]
    pdf = pdfium.PdfDocument(bytes(SourceFile.objects.get(document=document).data))
    page.context.add_cookies([{"name": "sessionid", "value": session_cookie["sessionid"], "url": asgi_server}])
    page.set_viewport_size({"width": 1366, "height": 900})

    page.goto(f"{asgi_server}/runs/{run.pk}/audit")
    expect(page.locator("figure.pdf-page img")).to_have_count(1)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    # Opens on citation 1, scrolled to it in both panes (not at the top of the document).
    text = page.evaluate(VISIBLE, [".doc-text", "mark#span"])
    assert text["scrolled"] > 0 and text["inside"], text
    assert page.evaluate(VISIBLE, ["#page-scroll", "svg.span-boxes rect"])["inside"]
    assert page.evaluate("document.querySelector('#page-scroll').getBoundingClientRect().bottom <= innerHeight")
    expect(page.locator("ol.citations a.cite[aria-current=true]")).to_have_attribute("data-span", str(first.pk))
    assert check_boxes(page, document, pdf) == {2: sum(1 for ch in first.quote if not ch.isspace())}
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "audit-pdf-page.png"))

    # The page opens fitted to its pane's width (tests/web/test_audit_fit_browser.py), zoomable from the keyboard;
    # the boxes stay on their glyphs at every zoom.
    expect(page.locator(".zoom-level")).to_have_text("fit width")
    page.keyboard.press("+")
    expect(page.locator(".zoom-level")).to_have_text("×1.5")
    check_boxes(page, document, pdf)
    assert page.evaluate(VISIBLE, ["#page-scroll", "svg.span-boxes rect"])["inside"], "zooming keeps the span in view"
    page.screenshot(path=str(SHOTS / "audit-pdf-zoom.png"))
    page.keyboard.press("0")
    expect(page.locator(".zoom-level")).to_have_text("fit width")
    page.keyboard.press("-")
    expect(page.locator(".zoom-level")).to_have_text("fit width")
    page.click("button.zoom[data-zoom='1']")
    expect(page.locator(".zoom-level")).to_have_text("×1.5")

    # Citation 2 crosses from page 2 to page 3: drawn on both.
    page.locator("ol.citations a.cite").nth(1).click()
    expect(page.locator("figure.pdf-page")).to_have_count(2)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    page.wait_for_timeout(200)
    assert page.evaluate(VISIBLE, ["#page-scroll", "svg.span-boxes rect"])["inside"]
    assert page.evaluate(VISIBLE, [".doc-text", "mark#span"])["inside"]
    counts = check_boxes(page, document, pdf)
    assert set(counts) == {2, 3} and all(counts.values())
    assert sum(counts.values()) == sum(1 for ch in second.quote if not ch.isspace())
    page.screenshot(path=str(SHOTS / "audit-pdf-cross-page.png"))
    pdf.close()
