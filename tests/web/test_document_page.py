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


def test_a_number_is_found_however_its_digits_are_grouped():
    # As stored from real papers (2020.acl-main.207, trustrank_web_spam); a thin space is stored as a space.
    text = (
        "In a dataset of 4,113 clicks, we found that SPECTER ranker improved clickthrough. We grouped the several "
        "billion pages into 31,003,946 sites; 4113 and 4 113 and 4\u2009113 again, not 14,113 nor 4,1130 nor 4,113,000."
    )
    for query in ("4113", "4,113", "4 113", "4\u2009113"):
        found = find_matches(text, query)
        assert [text[m.start : m.end] for m in found] == ["4,113", "4113", "4 113", "4\u2009113"], query
    assert [(m.text, text[m.start : m.end]) for m in find_matches(text, "31003946")] == [("31,003,946",) * 2]
    assert find_matches(text, "003") == [] and find_matches(text, "946") == [], "no piece of a longer number"
    cites = "cites [1,2] and 0.55 and 0.5"
    assert [cites[m.start : m.end] for m in find_matches(cites, "2")] == ["2"] and len(find_matches(cites, "0.5")) == 1


def test_a_hyphenated_word_is_found_where_a_line_end_broke_it():
    # As the parsers store it: joined (N18-3011, timp_r_package_jss), "graph- based" (semeagat), across a newline.
    text = (
        "as well as more finegrained classes (Valenzuela et al., 2015). It is a fully crossplatform problem-solving "
        "environment. So many graph- based ED researches emerged. The back-\nend server; a fine-grained one; "
        "fine grained is two words."
    )
    assert [text[m.start : m.end] for m in find_matches(text, "fine-grained")] == ["finegrained", "fine-grained"]
    assert [text[m.start : m.end] for m in find_matches(text, "cross-platform")] == ["crossplatform"]
    assert [text[m.start : m.end] for m in find_matches(text, "graph-based ED")] == ["graph- based ED"]
    assert [text[m.start : m.end] for m in find_matches(text, "problem-solving")] == ["problem-solving"]
    [back_end] = find_matches(text, "Back-End")
    assert (text[back_end.start : back_end.end], back_end.text) == ("back-\nend", "back- end")
    assert find_matches("ranks 10-20, not 1020", "10-20")[0].text == "10-20" and len(find_matches("1020", "10-20")) == 0


def assert_boxed_exactly(html: str, document, matches, shared_data) -> None:
    """Assert one box per printed character of every match on the shown page, each where pdfium prints it."""
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


def test_search_boxes_every_matched_glyph_where_pdfium_prints_it(logged_in_client, collection, shared_data):
    document = ingest_pdf(collection, shared_data)
    html = logged_in_client.get(f"/documents/{document.pk}/", {"q": "literature graph"}).content.decode()
    matches = find_matches(document.text, "literature graph", document.page_at)
    assert len(matches) > 5 and f"{len(matches)} matches for “literature graph”" in html
    assert_boxed_exactly(html, document, matches, shared_data)


def test_a_word_broken_at_a_line_end_and_a_grouped_number_are_boxed(logged_in_client, collection, shared_data):
    paper = ingest_pdf(collection, shared_data)  # N18-3011 prints "fine-" at a line end and "grained" below it
    html = logged_in_client.get(f"/documents/{paper.pk}/", {"q": "fine-grained"}).content.decode()
    [match] = find_matches(paper.text, "fine-grained", paper.page_at)
    assert paper.text[match.start : match.end] == "finegrained" and "1 match for “fine-grained”" in html
    assert_boxed_exactly(html, paper, [match], shared_data)
    specter = ingest_pdf(collection, shared_data, "2020.acl-main.207.pdf")  # "a dataset of 4,113 clicks"
    html = logged_in_client.get(f"/documents/{specter.pk}/", {"q": "4113"}).content.decode()
    [match] = find_matches(specter.text, "4113", specter.page_at)
    assert specter.text[match.start : match.end] == "4,113" and "1 match for “4113”" in html
    assert_boxed_exactly(html, specter, [match], shared_data)


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
