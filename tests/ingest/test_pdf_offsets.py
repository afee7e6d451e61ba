"""Canonical offsets map to the PDF's own characters: every mapped offset is a glyph printing that character."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from evidence.ingest.parsers import parse_file
from evidence.ingest.parsers.pdf_offsets import align, char_indices
from evidence.ingest.parsers.pdf_text import read_chars
from tests.ingest.pdfgen import Line, Run, make_pdf, text_line


def _chars(text: str) -> list[tuple[int, str]]:
    return list(enumerate(text))


def test_it_maps_identical_text_as_one_run() -> None:
    assert align("Hello world", 100, _chars("Hello world")) == [[100, 0, 11]]


def test_it_skips_a_dropped_hyphen_and_a_page_number() -> None:
    runs = align("example text", 0, _chars("exam-\r\nple\r\n12\r\ntext"))
    mapped = dict(char_indices(runs, 0, 12))
    source = "exam-\r\nple\r\n12\r\ntext"
    for offset, index in mapped.items():
        if not source[index].isspace():
            assert source[index] == "example text"[offset]
    assert all(o in mapped for o, ch in enumerate("example text") if not ch.isspace())
    assert source.index("1") not in mapped.values()  # the page number is nobody's glyph


def test_it_leaves_inserted_characters_unmapped() -> None:
    # "x^{ab}": the caret and braces were written by the rebuilder; pdfium printed only x, a and b.
    runs = align("x^{ab} y", 0, _chars("xab y"))
    mapped = dict(char_indices(runs, 0, 8))
    assert mapped == {0: 0, 3: 1, 4: 2, 6: 3, 7: 4}  # the space is pdfium's space; "^", "{" and "}" are no glyph


def test_it_matches_scripts_by_their_plain_form() -> None:
    assert dict(char_indices(align("10²⁵", 0, _chars("1025")), 0, 4)) == {0: 0, 1: 1, 2: 2, 3: 3}


def test_it_never_maps_a_character_to_a_different_glyph() -> None:
    runs = align("abc", 0, _chars("xyz"))
    assert runs == []


def _check_document(data: bytes, name: str) -> tuple[int, int]:
    """Check every mapped offset of a parsed PDF against the glyph pdfium reports; return (mapped, non-space)."""
    doc = parse_file(name, data)[0]
    assert doc.char_map is not None and doc.source_bytes == data
    pdf = pdfium.PdfDocument(data)
    mapped_total = characters = 0
    for page in doc.pages:
        textpage = pdf[page.number - 1].get_textpage()
        glyphs = {c.index: c.text for c in read_chars(textpage.raw)}
        mapped = dict(char_indices(doc.char_map[str(page.number)], page.start, page.end))
        for offset, index in mapped.items():
            assert page.start <= offset < page.end
            want = unicodedata.normalize("NFKC", doc.text[offset])
            got = unicodedata.normalize("NFKC", {"\ufffe": "-", "\x02": "-"}.get(glyphs[index], glyphs[index]))
            assert got == want, (page.number, offset, doc.text[offset], glyphs[index])
        characters += sum(1 for ch in doc.text[page.start : page.end] if not ch.isspace())
        mapped_total += sum(1 for o in mapped if not doc.text[o].isspace())
    pdf.close()
    return mapped_total, characters


def test_it_maps_a_generated_page_with_scripts() -> None:
    data = make_pdf(
        [[text_line(72, 740, "A Generated Test Page", 16, "F2"),
          Line(72, 650, [Run("The cloud holds 10"), Run("25", 7, "F1", 4), Run(" atoms in total.")])]]
    )
    mapped, characters = _check_document(data, "t.pdf")
    assert mapped == characters


@pytest.mark.slow
def test_it_maps_the_real_papers(data_dir: Path) -> None:
    for path in sorted((data_dir / "papers" / "pdf").glob("*.pdf")):
        mapped, characters = _check_document(path.read_bytes(), path.name)
        # Measured: 46633/46633 and 28706/28710 (the four unmapped are "_{" "}" the rebuilder wrote).
        assert mapped / characters > 0.999, (path.name, mapped, characters)
