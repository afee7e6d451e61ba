"""PDF pages for the audit view: page images rendered once and cached, and a span's exact character boxes.

Boxes come only from the offset map stored at ingest (canonical offset -> pdfium character index), so a box
is drawn only around a glyph that prints the span's own character; offsets with no mapped glyph are counted
as missing and shown as such, never filled in from neighbours.
"""

from __future__ import annotations

import ctypes
import os
import struct
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from django.conf import settings

from .ingest import char_indices
from .models import Document, SourceFile

SCALE = 2.0  # pixels per PDF point in the cached image (144 dpi): sharp at 100 % zoom, fine at 200 %
MAX_PIXELS = 40_000_000  # an A0 poster at SCALE is ~27 M; past this a page would cost the web process gigabytes
# pdfium is not thread-safe, even across documents, and page views run in request threads: one at a time.
PDFIUM = threading.Lock()


class PageTooLarge(ValueError):
    """A page whose image would need more than MAX_PIXELS."""


@dataclass
class Box:
    """One character's box on the page image, in image pixels from the top left."""

    offset: int  # canonical offset of the character
    index: int  # pdfium character index on the text page
    x: float
    y: float
    w: float
    h: float


@dataclass
class PageBoxes:
    """The part of a span on one page: its boxes and the characters that have none."""

    number: int
    width: int  # image pixels
    height: int
    boxes: list[Box] = field(default_factory=list)
    characters: int = 0  # non-space characters of the span on this page
    missing: int = 0  # ... of which no glyph was found


def _to_image(page: pdfium.PdfPage, x: float, y: float) -> tuple[float, float]:
    """Convert page space to image pixels the way pdfium renders the page (crop box, rotation)."""
    rotation = page.get_rotation()
    if rotation == 0:
        left, _bottom, _right, top = page.get_cropbox()
        return (x - left) * SCALE, (top - y) * SCALE
    width, height = page.get_size()
    dx, dy = ctypes.c_int(), ctypes.c_int()
    pdfium_c.FPDF_PageToDevice(
        page.raw, 0, 0, round(width * SCALE), round(height * SCALE), 0, x, y, ctypes.byref(dx), ctypes.byref(dy)
    )
    return float(dx.value), float(dy.value)


def span_pages(document: Document, source: SourceFile, start: int, end: int) -> list[PageBoxes]:
    """Return, for each page the span touches, the boxes of its characters (one box per glyph)."""
    with PDFIUM:
        return _span_pages(document, source, start, end)


def _span_pages(document: Document, source: SourceFile, start: int, end: int) -> list[PageBoxes]:
    result: list[PageBoxes] = []
    pdf = pdfium.PdfDocument(bytes(source.data))
    try:
        for number, page_start, page_end in document.pages:
            lo, hi = max(start, int(page_start)), min(end, int(page_end))
            if lo < hi:
                result.append(_page_boxes(document, source, pdf, int(number), [(lo, hi)]))
    finally:
        pdf.close()
    return result


def ranges_on_page(document: Document, source: SourceFile, number: int, ranges: list[tuple[int, int]]) -> PageBoxes:
    """Return the boxes of every character of `ranges` (canonical offsets) that lies on page `number`."""
    bounds = next(((int(s), int(e)) for n, s, e in document.pages if int(n) == number), None)
    if bounds is None:
        raise IndexError(number)
    clipped = [(max(lo, bounds[0]), min(hi, bounds[1])) for lo, hi in ranges]
    with PDFIUM:
        pdf = pdfium.PdfDocument(bytes(source.data))
        try:
            return _page_boxes(document, source, pdf, number, [(lo, hi) for lo, hi in clipped if lo < hi])
        finally:
            pdf.close()


def _page_boxes(
    document: Document, source: SourceFile, pdf: pdfium.PdfDocument, number: int, ranges: list[tuple[int, int]]
) -> PageBoxes:
    """The boxes of the characters of `ranges` (all on page `number`), one per glyph that prints it."""
    page = pdf[number - 1]
    width, height = page.get_size()
    part = PageBoxes(number, round(width * SCALE), round(height * SCALE))
    textpage = page.get_textpage()
    try:
        for lo, hi in ranges:
            mapped = dict(char_indices(source.char_map.get(str(number), []), lo, hi))
            for offset in range(lo, hi):
                if document.text[offset].isspace():
                    continue
                part.characters += 1
                index = mapped.get(offset)
                if index is None:
                    part.missing += 1
                    continue
                left, bottom, right, top = textpage.get_charbox(index, loose=True)
                if right <= left or top <= bottom:
                    part.missing += 1  # pdfium has the glyph but no area for it: nothing honest to draw
                    continue
                corners = [_to_image(page, x, y) for x, y in ((left, top), (right, bottom))]
                x0, x1 = sorted(c[0] for c in corners)
                y0, y1 = sorted(c[1] for c in corners)
                part.boxes.append(Box(offset, index, round(x0, 2), round(y0, 2), round(x1 - x0, 2), round(y1 - y0, 2)))
    finally:
        textpage.close()
        page.close()
    return part


def cache_dir() -> Path:
    return Path(settings.EVIDENCE_PAGE_CACHE_DIR)


def page_image(source: SourceFile, number: int) -> tuple[Path, float]:
    """Return the cached PNG of a page (rendering it on first use) and the seconds rendering took (0 if cached)."""
    path = cache_dir() / source.sha256[:2] / source.sha256 / f"p{number}@{SCALE:g}.png"
    if path.exists():
        return path, 0.0
    began = time.perf_counter()
    data = bytes(source.data)
    with PDFIUM:
        pdf = pdfium.PdfDocument(data)
        try:
            if not 1 <= number <= len(pdf):
                raise IndexError(f"page {number} is not in this PDF ({len(pdf)} pages)")
            page = pdf[number - 1]
            width, height = page.get_size()
            if width * height * SCALE * SCALE > MAX_PIXELS:
                page.close()
                raise PageTooLarge(f"page {number} is {width:.0f} x {height:.0f} points, too large to render")
            bitmap = page.render(scale=SCALE, rev_byteorder=True, may_draw_forms=False)
            png = encode_png(bitmap)
            bitmap.close()
            page.close()
        finally:
            pdf.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name and renamed: two requests rendering one page never serve half a file.
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(png)
    os.replace(tmp, path)
    return path, time.perf_counter() - began


def encode_png(bitmap: pdfium.PdfBitmap) -> bytes:
    """Encode a pdfium RGB/RGBA bitmap as PNG with the standard library (no imaging package here)."""
    channels = {pdfium_c.FPDFBitmap_BGR: 3, pdfium_c.FPDFBitmap_BGRx: 4, pdfium_c.FPDFBitmap_BGRA: 4}[bitmap.format]
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    raw = bytes(ctypes.cast(bitmap.buffer, ctypes.POINTER(ctypes.c_ubyte * (stride * height))).contents)
    rows = bytearray()
    row_bytes = width * channels
    for y in range(height):
        rows.append(0)
        rows += raw[y * stride : y * stride + row_bytes]
    color_type = 2 if channels == 3 else 6
    if channels == 4:  # BGRx with reversed order is RGBx: make the padding byte opaque alpha
        data = bytearray(rows)
        for y in range(height):
            base = y * (row_bytes + 1) + 1
            data[base + 3 : base + row_bytes : 4] = b"\xff" * width
        rows = data

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 6))
        + chunk(b"IEND", b"")
    )
