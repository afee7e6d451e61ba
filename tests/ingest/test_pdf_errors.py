"""Unreadable PDFs are refused with one plain sentence that names the file and says what to do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evidence.ingest.parsers import parse_file
from evidence.ingest.types import IngestError
from tests.ingest.pdfgen import PASSWORD_ENCRYPT, make_pdf, text_line

PAGE = [[text_line(72, 700, "A page with some text on it.", 12)]]


def _reason(filename: str, data: bytes) -> str:
    """Parse bytes that must be refused; return the reason after checking it reads as one plain sentence."""
    with pytest.raises(IngestError) as info:
        parse_file(filename, data)
    message = str(info.value)
    assert message.startswith(f"{filename} ") and message.endswith(".") and "\n" not in message
    assert "Error" not in message and "PDFium" not in message and "/work" not in message
    return info.value.reason


@pytest.mark.parametrize("fraction", [2, 3])
def test_it_says_a_cut_pdf_is_truncated(data_dir: Path, fraction: int) -> None:
    data = (data_dir / "papers/pdf/N18-3011.pdf").read_bytes()
    reason = _reason("cut.pdf", data[: len(data) // fraction])
    assert reason.startswith("is truncated") and "upload it again" in reason


def test_it_reads_a_pdf_missing_only_its_last_bytes(data_dir: Path) -> None:
    data = (data_dir / "papers/pdf/N18-3011.pdf").read_bytes()
    assert parse_file("short.pdf", data[:-6])[0].text  # "%%EOF\n" lost: the trailer is still there


def test_it_says_a_password_pdf_is_encrypted() -> None:
    reason = _reason("secret.pdf", make_pdf(PAGE, encrypt_dict=PASSWORD_ENCRYPT))
    assert reason == "is encrypted with a password: upload an unprotected copy"


def test_it_says_random_bytes_are_not_a_pdf() -> None:
    reason = _reason("random.pdf", os.urandom(4096).replace(b"%PDF-", b"xxxxx"))
    assert reason.startswith("is not a PDF")


def test_it_says_an_empty_file_is_empty() -> None:
    reason = _reason("empty.pdf", b"")
    assert reason.startswith("is empty (0 bytes)") and "upload a complete copy" in reason


def test_it_reads_a_generated_pdf() -> None:
    assert "A page with some text on it." in parse_file("ok.pdf", make_pdf(PAGE))[0].text
