"""PDF titles come from real metadata or the largest lines near the top of page 1, never headers or authors."""

from __future__ import annotations

import pytest

from evidence.ingest.parsers import parse_file
from evidence.ingest.parsers.pdf_title import looks_like_authors, metadata_is_plausible
from tests.ingest.paper_pdfs import synthetic_papers
from tests.ingest.pdfgen import Line, Run, make_pdf, text_line
from tests.ingest.real_titles import DATA, comparable, known_titles
from tests.real_data import require


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


def test_fonts_set_at_size_one_and_scaled_by_the_matrix_keep_their_printed_sizes() -> None:
    """Word processors often print every font at size 1, scaled by the text matrix: the title's second line and
    the authors' smaller line are told apart by the printed size, so the title is whole and has no names in it."""
    lines = [
        Line(72, 700, [Run("Mining Generalized Association Rules on Biomedical", 14, "F2")], unit_font=True),
        Line(72, 684, [Run("Literature", 14, "F2")], unit_font=True),
        Line(72, 660, [Run("Margherita Berardi, Michele Lapi", 11)], unit_font=True),
        Line(72, 640, [Run("The discovery of new relationships between concepts is hard.", 10)], unit_font=True),
    ]
    document = parse_file("rules.pdf", make_pdf([lines], {"Title": "Microsoft Word - final.doc"}))[0]
    assert document.title == "Mining Generalized Association Rules on Biomedical Literature"
    assert document.metadata["title_source"] == "layout"


def test_a_title_may_name_an_institution_in_its_own_type() -> None:
    lines = [
        text_line(72, 700, "Barriers to quality improvement: a situational analysis", 20, "F3"),
        text_line(72, 678, "at the Medical Department of Kamuzu Central Hospital", 20, "F3"),
        text_line(72, 650, "Josephine Agyeman-Duah, Antje Theurer", 11),
        text_line(72, 635, "Department of Medicine, University of Heidelberg", 9),
    ]
    document = parse_file("qi.pdf", make_pdf([lines]))[0]
    assert document.title == (
        "Barriers to quality improvement: a situational analysis at the Medical Department of Kamuzu Central Hospital"
    )


@pytest.mark.slow  # real PDFs parsed whole: ~12 s on 2 cores
def test_real_papers_from_several_publishers_get_their_printed_titles() -> None:
    """The 22 real PDFs of ../shared/data (ACL, NAACL, BMC, Hindawi, Springer, JSS, OSDI, Word exports...)."""
    require(DATA)
    real_pdfs = sorted(known_titles().items())
    wrong = []
    for path, truth in real_pdfs:
        document = parse_file(path.name, path.read_bytes())[0]
        if comparable(document.title) != comparable(truth):
            wrong.append((path.name, document.title, truth))
        assert document.metadata["title_source"] in {"metadata", "layout"}
    assert len(real_pdfs) >= 20 and wrong == []


def test_a_title_set_in_small_capitals_keeps_every_letter() -> None:
    """Small capitals are smaller glyphs on the baseline: not footnote marks, so none is dropped."""
    title = Line(72, 700, [Run("C", 20, "F2"), Run("ITE", 15, "F2"), Run("S", 20, "F2"), Run("EE", 15, "F2"),
                           Run(": Citations in Context", 20, "F2"), Run("1", 12, "F2", 8)])  # fmt: skip
    lines = [title, text_line(72, 660, "Ana Silva, Bruno Costa", 11), text_line(72, 620, "We read papers.", 10)]
    assert parse_file("citesee.pdf", make_pdf([lines]))[0].title == "CITESEE: Citations in Context"
