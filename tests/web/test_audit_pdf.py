"""The audit's PDF page: the span's own glyph boxes drawn on the rendered page, on both pages when it crosses one."""

from __future__ import annotations

import re

import pypdfium2 as pdfium
import pytest

from evidence.models import SourceFile, Span
from tests.web.pdf_runs import ONE_PAGE_QUOTE, cross_page_range, ingest_pdf, pdf_run

pytestmark = pytest.mark.django_db

RECT = re.compile(
    r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" data-offset="(\d+)" data-index="(\d+)"/>'
)


@pytest.fixture
def pdf_document(collection, shared_data, settings, tmp_path):
    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    return ingest_pdf(collection, shared_data)


@pytest.fixture
def run_with_pdf(user, collection, pdf_document, run_factory):
    return pdf_run(user, collection, pdf_document, run_factory)


def figures(html: str) -> dict[int, list[tuple[float, ...]]]:
    """Return the drawn rects of each page figure: (x, y, w, h, offset, index)."""
    found = {}
    for match in re.finditer(r'<figure class="pdf-page" data-page="(\d+)".*?</figure>', html, re.S):
        found[int(match.group(1))] = [tuple(float(v) for v in r) for r in RECT.findall(match.group(0))]
    return found


def test_it_stores_the_pdf_and_its_offset_map(pdf_document):
    source = SourceFile.objects.get(document=pdf_document)
    assert bytes(source.data)[:5] == b"%PDF-"
    assert set(source.char_map) == {str(n) for n, _s, _e in pdf_document.pages}


def test_it_draws_one_box_per_character_of_the_span(logged_in_client, run_with_pdf, pdf_document):
    html = logged_in_client.get(f"/runs/{run_with_pdf.pk}/audit").content.decode()
    pages = figures(html)
    assert list(pages) == [2]
    rects = pages[2]
    span = run_with_pdf.citations.order_by("answer_part").first().span
    assert span.quote == ONE_PAGE_QUOTE
    assert [int(r[4]) for r in rects] == [o for o in range(span.start, span.end) if not pdf_document.text[o].isspace()]
    # Each drawn box is pdfium's box of a glyph printing the same character (checked in the PDF itself).
    pdf = pdfium.PdfDocument(bytes(SourceFile.objects.get(document=pdf_document).data))
    textpage = pdf[1].get_textpage()
    height = pdf[1].get_height()
    for x, y, w, h, offset, index in rects:
        assert textpage.get_text_range(int(index), 1) == pdf_document.text[int(offset)]
        left, bottom, right, top = textpage.get_charbox(int(index))
        assert x <= left * 2 + 0.01 and right * 2 <= x + w + 0.01
        assert y <= (height - top) * 2 + 0.01 and (height - bottom) * 2 <= y + h + 0.01
    pdf.close()
    assert "boxes-missing" not in html


def test_it_draws_a_cross_page_span_on_both_pages(logged_in_client, run_with_pdf, pdf_document):
    start, end = cross_page_range(pdf_document)
    span = Span.objects.get(run=run_with_pdf, start=start, end=end)
    html = logged_in_client.get(f"/runs/{run_with_pdf.pk}/audit?span={span.pk}").content.decode()
    pages = figures(html)
    assert list(pages) == [2, 3] and all(pages.values())
    drawn = sum(len(r) for r in pages.values())
    assert drawn == sum(1 for ch in span.quote if not ch.isspace())


def test_it_serves_the_page_image_and_caches_it(logged_in_client, pdf_document, settings):
    response = logged_in_client.get(f"/documents/{pdf_document.pk}/pages/2.png")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((settings.EVIDENCE_PAGE_CACHE_DIR).rglob("p2@2.png"))
    assert logged_in_client.get(f"/documents/{pdf_document.pk}/pages/99.png").status_code == 404


def test_it_refuses_another_users_page(client, other_user, pdf_document):
    client.force_login(other_user)
    assert client.get(f"/documents/{pdf_document.pk}/pages/1.png").status_code == 404


def test_it_says_so_when_a_pdf_has_no_page_map(logged_in_client, run_with_pdf, pdf_document):
    SourceFile.objects.filter(document=pdf_document).delete()
    html = logged_in_client.get(f"/runs/{run_with_pdf.pk}/audit").content.decode()
    assert "stored without its page map" in html and "<rect" not in html


def test_it_draws_nothing_for_a_broken_span(logged_in_client, run_with_pdf):
    span = run_with_pdf.citations.order_by("answer_part").first().span
    Span.objects.filter(pk=span.pk).update(start=span.start + 2, end=span.end + 2)
    html = logged_in_client.get(f"/runs/{run_with_pdf.pk}/audit?span={span.pk}").content.decode()
    assert "Nothing is drawn on the page" in html and "<rect" not in html


def test_it_marks_characters_without_a_box(logged_in_client, run_with_pdf, pdf_document):
    source = SourceFile.objects.get(document=pdf_document)
    span = run_with_pdf.citations.order_by("answer_part").first().span
    # Drop the map of the span's first word: those glyphs must be reported missing, not drawn from neighbours.
    runs = []
    for offset, index, length in source.char_map["2"]:
        for k in range(length):
            if not span.start <= offset + k < span.start + 3:
                runs.append([offset + k, index + k, 1])
    source.char_map["2"] = runs
    source.save()
    html = logged_in_client.get(f"/runs/{run_with_pdf.pk}/audit").content.decode()
    assert "3 of 40 characters" in html
    assert len(figures(html)[2]) == 37
