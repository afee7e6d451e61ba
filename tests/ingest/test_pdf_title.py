"""PDF titles come from real metadata or the largest lines near the top of page 1, never headers or authors."""

from __future__ import annotations

import pytest

from evidence.ingest.parsers import parse_file
from evidence.ingest.parsers.pdf_title import looks_like_authors, metadata_is_plausible
from tests.ingest.paper_pdfs import synthetic_papers
from tests.ingest.pdfgen import make_pdf, text_line


@pytest.mark.parametrize(("name", "data", "title"), synthetic_papers(), ids=[p[0] for p in synthetic_papers()])
def test_it_finds_the_printed_title(name: str, data: bytes, title: str) -> None:
    assert parse_file(name, data)[0].title == title


def _page(title_meta: str) -> bytes:
    lines = [
        text_line(72, 740, "Graph Neural Networks for Citation Recommendation", 16, "F2"),
        text_line(72, 715, "Ana Silva, Bruno Costa", 11),
        text_line(72, 680, "Citation recommendation suggests papers to cite for a draft.", 10),
    ]
    return make_pdf([lines], {"Title": title_meta})


def test_it_prefers_metadata_that_page_one_confirms() -> None:
    doc = parse_file("a.pdf", _page("Graph neural networks for citation recommendation"))[0]
    assert doc.title == "Graph neural networks for citation recommendation"


def test_it_ignores_metadata_page_one_does_not_show() -> None:
    doc = parse_file("a.pdf", _page("Proceedings of the Workshop on Scholarly Document Processing"))[0]
    assert doc.title == "Graph Neural Networks for Citation Recommendation"


@pytest.mark.parametrize(
    ("title", "plausible"),
    [
        ("Microsoft Word - draft.docx", False),
        ("paper_final_v3", False),
        ("doi:10.1000/xyz", False),
        ("Untitled", False),
        ("", False),
        ("Dense Passage Retrieval for Open-Domain Question Answering", True),
    ],
)
def test_metadata_plausibility(title: str, plausible: bool) -> None:
    assert metadata_is_plausible(title) is plausible


@pytest.mark.parametrize(
    ("line", "authors"),
    [
        ("Waleed Ammar, Dirk Groeneveld, Chandra Bhagavatula, Iz Beltagy", True),
        ("Jane Doe and John Smith", True),
        ("Maria Rossi1,*, Luca Bianchi2", True),
        ("Typos, Paraphrases and Adversarial", False),
        ("Long Scientific Documents", False),
    ],
)
def test_author_lines(line: str, authors: bool) -> None:
    assert looks_like_authors(line) is authors
