"""PDF text keeps exponents, indices and TeX symbol-font glyphs; offsets still index the canonical text."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.ingest.parsers import parse_file
from evidence.ingest.parsers.pdf_ligatures import repair_ligatures
from evidence.ingest.parsers.pdf_offsets import char_indices
from evidence.ingest.parsers.pdf_symbols import font_family, symbol_text
from evidence.retrieval.analyzer import standard_tokenize
from tests.ingest.conftest import assert_document_ok
from tests.ingest.pdfgen import Line, Run, make_pdf, text_line


def _text(*lines: Line) -> str:
    """Parse a one-page PDF and return its canonical text."""
    doc = parse_file("t.pdf", make_pdf([[text_line(72, 740, "A Generated Test Page", 16, "F2"), *lines]]))[0]
    assert_document_ok(doc)
    return doc.text


def test_it_keeps_a_superscript_exponent() -> None:
    text = _text(Line(72, 650, [Run("The cloud holds 10"), Run("25", 7, "F1", 4), Run(" atoms in total.")]))
    assert "10²⁵ atoms" in text
    assert "1025" not in text


def test_it_keeps_a_subscript_split_off_by_pdfium() -> None:
    # pdfium breaks the line at the lowered glyph: "CO\r\n2\r\n emissions".
    text = _text(Line(72, 650, [Run("Plants absorb CO"), Run("2", 7, "F1", -2), Run(" from the air.")]))
    assert "absorb CO₂ from the air." in text


def test_a_footnote_mark_after_a_word_is_raised_and_never_part_of_the_word() -> None:
    text = _text(Line(72, 650, [Run("We use the PDFBox library"), Run("3", 7, "F1", 4), Run(" to read pages.")]),
                 Line(72, 620, [Run("Sebastian Seung"), Run("1,2", 7, "F1", 4), Run(" wrote it.")]))  # fmt: skip
    assert "PDFBox library³ to read pages." in text and "Seung¹,² wrote" in text
    assert "library" in standard_tokenize(text) and "library3" not in standard_tokenize(text)


def test_a_footnote_mark_opening_a_footnote_is_raised_too() -> None:
    text = _text(Line(72, 650, [Run("8", 7, "F1", 4), Run("The papers were chosen by hand.")]),
                 Line(72, 620, [Run("17", 7, "F1", 4), Run("https://example.org/data")]))  # fmt: skip
    assert "⁸The papers" in text and "¹⁷https://example.org/data" in text
    assert {"the", "https"} <= {t.lower() for t in standard_tokenize(text)}


def test_a_raised_digit_after_a_space_is_left_as_printed() -> None:
    """A table or matrix cell set a little higher is no footnote: only a mark stuck to a word is raised."""
    text = _text(Line(72, 650, [Run("Row 0 0 "), Run("1", 7, "F1", 4), Run(" 2 0")]))
    assert "0 0 1 2 0" in " ".join(text.split())


def test_ligatures_a_tex_font_prints_at_control_codes_are_read_as_their_letters_with_exact_offsets() -> None:
    """cmr10 (OT1) and sfrm1000 (T1) without ToUnicode: pdfium reports ff, fi, fl, ffi, ffl by their byte codes."""
    lines = [
        text_line(72, 650, "The e\x0bective de\x0cnition re\rects Je\x0berson and e\x0ecient ba\x0fes.", 10, "FO"),
        text_line(72, 620, "The e\x1bective \x1cgures re\x1dect o\x1ece sni\x1fes.", 10, "FC"),
        text_line(72, 590, "Typewriter: a\x0bb stays.", 10, "FW"),
    ]
    doc = parse_file("t.pdf", make_pdf([[text_line(72, 740, "A Generated Test Page", 16, "F2"), *lines]]))[0]
    assert_document_ok(doc)
    assert "The effective definition reflects Jefferson and efficient baffles." in doc.text
    assert "The effective figures reflect office sniffles." in doc.text
    assert "Typewriter: a b stays." in doc.text and "affb" not in doc.text  # cmtt's 0x0B is no ligature
    # Every letter of a ligature maps to its one glyph, so a quote's boxes cover it on the page.
    start = doc.text.index("effective")
    mapped = dict(char_indices(doc.char_map["1"], start, start + len("effective")))
    assert len(mapped) == len("effective") and mapped[start + 1] == mapped[start + 2]
    assert sorted(set(mapped.values())) == list(range(mapped[start], mapped[start] + len("effective") - 1))


def test_it_maps_an_ams_symbol_font_glyph() -> None:
    # msam10 without a ToUnicode map: pdfium reports code 0x26, which reads "&".
    text = _text(Line(72, 650, [Run("The effect holds for n "), Run("&", 10, "FM"), Run(" 30 and fails below.")]))
    assert "n ≳ 30" in text
    assert "&" not in text


def test_it_leaves_ampersands_in_text_fonts() -> None:
    assert "Smith & Jones" in _text(text_line(72, 650, "As shown by Smith & Jones in their study.", 10))


@pytest.mark.parametrize(
    ("font", "code", "flagged", "expected"),
    [
        ("ABCDEF+MSAM10", 0x26, False, "≳"),
        ("MSBM10", ord("R"), False, "ℝ"),
        ("CMSY10", 0x14, False, "≤"),  # a control code is always a fallback
        ("CMSY10", 0x6B, True, "‖"),
        ("CMSY10", 0x6B, False, None),  # unflagged ASCII in cmsy may be a real mapping: kept
        ("CMEX10", 0x6E, True, "{"),
        ("NimbusRomNo9L-Regu", 0x26, True, None),
    ],
)
def test_symbol_table(font: str, code: int, flagged: bool, expected: str | None) -> None:
    assert symbol_text(font_family(font), code, flagged) == expected


def test_it_maps_tex_symbols_in_a_real_paper(data_dir: Path) -> None:
    doc = parse_file("s.pdf", (data_dir / "papers/pdf/2020.acl-main.207.pdf").read_bytes())[0]
    assert_document_ok(doc)
    assert "‖vA − vB‖₂" in doc.text  # cmsy "bardbl" (reported as "k") and a subscript 2
    assert "kvA − vBk2" not in doc.text


def test_a_math_fonts_epsilon_at_a_ligature_code_stays_a_symbol() -> None:
    """cmmi10 and txfonts' rtxmi keep epsilon at 0x0F (µε, microstrain): never read as "ffl"."""
    assert repair_ligatures([0xB5, 0x0F, 0x20], ["µ", "\x0f", " "], "rtxmi") == ["µ", "\x0f", " "]
    assert repair_ligatures([0x61, 0x0F], ["a", "\x0f"], "CMMI10") == ["a", "\x0f"]
    assert repair_ligatures([0xB5, 0x0F, 0x20], ["µ", "\x0f", " "], "CMR10") == ["µ", "\x0f", " "]  # no Latin letter
    assert repair_ligatures([0x61, 0x0F], ["a", "\x0f"], "ABCDEF+CMR10") == ["a", "ffl"]
