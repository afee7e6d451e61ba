"""The document page: search inside a real PDF, the matches boxed on the page exactly where pdfium prints them."""

from __future__ import annotations

import re

import pypdfium2 as pdfium
import pytest

from evidence.document_search import find_matches, query_pattern
from evidence.pdfpages import SCALE
from tests.web.conftest import make_finished_run
from tests.web.pdf_runs import ONE_PAGE_QUOTE, ingest_pdf

pytestmark = pytest.mark.django_db

RECT = re.compile(
    r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" data-offset="(\d+)" '
    r'data-index="(\d+)"/>'
)


def test_matches_ignore_case_and_line_breaks_and_keep_their_order():
    text = "The Literature\nGraph is big. A literature graph again; graph literature is not it."
    found = find_matches(text, "  literature   GRAPH ")
    assert [(m.start, m.end, m.text) for m in found] == [(4, 20, "Literature Graph"), (31, 47, "literature graph")]
    assert found[1].before.endswith("big. A") and found[1].after.startswith("again;")
    assert find_matches(text, "   ") == [] and query_pattern("a.b(") is not None, "typed text is literal"
    assert len(find_matches("x " * 500, "x", limit=200)) == 200


def test_search_boxes_every_matched_glyph_where_pdfium_prints_it(logged_in_client, collection, shared_data):
    document = ingest_pdf(collection, shared_data)
    html = logged_in_client.get(f"/documents/{document.pk}/", {"q": "literature graph"}).content.decode()
    matches = find_matches(document.text, "literature graph", document.page_at)
    assert len(matches) > 5 and f"{len(matches)} matches for “literature graph”" in html
    first_page = matches[0].page
    assert f'data-page="{first_page}"' in html, "the page of the first match is shown"
    rects = [tuple(float(v) for v in r) for r in RECT.findall(html)]
    on_page = [m for m in matches if m.page == first_page]
    wanted = {o for m in on_page for o in range(m.start, m.end) if not document.text[o].isspace()}
    assert {int(r[4]) for r in rects} == wanted, "one box per printed character of every match on the page"
    pdf = pdfium.PdfDocument(str(shared_data / "papers" / "pdf" / document.source_name))
    page = pdf[first_page - 1]
    textpage = page.get_textpage()
    crop_left, _bottom, _right, crop_top = page.get_cropbox()
    for x, y, w, h, offset, index in rects:
        assert textpage.get_text_range(int(index), 1).lower() == document.text[int(offset)].lower()
        x0, y0, x1, y1 = textpage.get_charbox(int(index), loose=True)  # left, bottom, right, top in PDF points
        assert (x, y) == pytest.approx(((x0 - crop_left) * SCALE, (crop_top - y1) * SCALE), abs=0.01)
        assert (w, h) == pytest.approx(((x1 - x0) * SCALE, (y1 - y0) * SCALE), abs=0.02)
    textpage.close()
    page.close()
    pdf.close()


def test_a_page_can_be_chosen_and_the_cited_spans_are_listed(logged_in_client, user, collection, shared_data):
    document = ingest_pdf(collection, shared_data)
    run = make_finished_run(user, collection, document, question="How many author nodes?", quote=ONE_PAGE_QUOTE)
    html = logged_in_client.get(f"/documents/{document.pk}/", {"page": "3"}).content.decode()
    assert 'data-page="3"' in html and f"of {len(document.pages)}" in html and 'data-boxes="0"' in html
    assert 'id="cited"' in html and "How many author nodes?" in html and ONE_PAGE_QUOTE in html
    assert f"/runs/{run.pk}/audit?span=" in html
    for bad in ("0", "999", "x", "-1"):
        assert 'data-page="1"' in logged_in_client.get(f"/documents/{document.pk}/", {"page": bad}).content.decode()
    none = logged_in_client.get(f"/documents/{document.pk}/", {"q": "zebra unicorn"}).content.decode()
    assert "No match for “zebra unicorn”" in none


def test_a_text_document_links_matches_to_their_passage(logged_in_client, document):
    html = logged_in_client.get(f"/documents/{document.pk}/", {"q": "adenosine"}).content.decode()
    target = f"p{document.passages.get().ordinal}" if document.passages.exists() else "text"
    assert "1 match for “adenosine”" in html and f'href="?q=adenosine#{target}"' in html
    assert 'id="page-view"' not in html and f'id="{target}"' in html


def test_nobody_else_reads_or_searches_your_document(client, other_user, document):
    client.force_login(other_user)
    assert client.get(f"/documents/{document.pk}/", {"q": "caffeine"}).status_code == 404


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_searching_a_paper_in_chromium_boxes_the_matches_on_its_page(
    page, asgi_server, collection, shared_data, session_cookie, settings, tmp_path
):
    from playwright.sync_api import expect

    from tests.web.test_pages_browser import login, shot

    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    document = ingest_pdf(collection, shared_data)
    login(page, asgi_server, session_cookie)
    page.goto(f"{asgi_server}/documents/{document.pk}/")
    page.fill("#doc-q", "paper nodes")
    page.click("form.doc-search button")
    expect(page.locator("#matches h2")).to_contain_text("for “paper nodes”")
    figure = page.locator("figure.doc-page")
    expect(figure.locator("svg.span-boxes rect").first).to_be_attached()
    page.wait_for_function("document.querySelector('figure.doc-page img').naturalWidth > 0")  # the page image loaded
    box = figure.locator("svg.span-boxes rect").first.bounding_box()
    frame = figure.locator(".page-frame").bounding_box()
    assert frame["x"] <= box["x"] <= frame["x"] + frame["width"] and box["width"] > 0
    shot(page, "document-search", full=False)
    page.fill("#page-number", "4")
    page.click("form.page-jump button")
    expect(page.locator("figure.doc-page")).to_have_attribute("data-page", "4")
