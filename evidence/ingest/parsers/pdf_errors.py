"""Open a PDF, turning every way it can fail into one plain sentence that says what to do."""

from __future__ import annotations

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..types import IngestError

_TAIL = 4096  # a complete PDF ends with "startxref <offset> %%EOF"; junk after it is rarely this long


def is_truncated(data: bytes) -> bool:
    """Tell whether PDF bytes stop before the end-of-file trailer ("startxref ... %%EOF")."""
    tail = data[-_TAIL:]
    return b"%%EOF" not in tail and b"startxref" not in tail


def diagnose(data: bytes, err_code: int | None) -> str:
    """Return the IngestError reason for PDF bytes pdfium refused to open."""
    if b"%PDF-" not in data[:1024]:
        return "is not a PDF (it does not start with a PDF header): upload the PDF file itself"
    if err_code == pdfium_c.FPDF_ERR_PASSWORD:
        return "is encrypted with a password: upload an unprotected copy"
    if err_code == pdfium_c.FPDF_ERR_SECURITY:
        return "is protected by an unsupported security handler: upload an unprotected copy"
    if is_truncated(data):
        if b" obj" not in data:
            return "is not a readable PDF: it has a PDF header but no PDF objects; export it again and upload that"
        return "is truncated: the file ends before its cross-reference table; upload it again"
    return "is a damaged PDF that cannot be read: export or download it again and upload the new copy"


def open_pdf(filename: str, data: bytes) -> pdfium.PdfDocument:
    """Open PDF bytes with pdfium, or raise an IngestError naming the file and the fix."""
    if b"%PDF-" in data[:1024] and is_truncated(data) and b" obj" in data:
        # pdfium rebuilds a cut file from the objects it finds, which would leave half a document.
        raise IngestError(filename, diagnose(data, None))
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise IngestError(filename, diagnose(data, exc.err_code)) from exc


def page_error(filename: str, number: int) -> IngestError:
    """Return the error for a page pdfium could not read."""
    where = f"page {number}" if number else "its page tree"
    return IngestError(filename, f"is a damaged PDF ({where} cannot be read): export it again and upload the new copy")
