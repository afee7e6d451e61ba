"""PDF parser (pypdfium2): per-page text rebuilt into searchable paragraphs."""

from __future__ import annotations

import re
from collections.abc import Callable

import pypdfium2 as pdfium

from ...text import Table, find_tables
from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import IngestError, ParsedDocument
from .common import MAX_TITLE_CHARS, file_stem
from .pdf_byline import Byline, read_byline
from .pdf_errors import open_pdf, page_error
from .pdf_offsets import align
from .pdf_text import TextLine, page_text
from .pdf_title import choose_title

# pdfium marks a hyphen it found at a line end with U+FFFE (older builds: U+0002) and joins the lines.
_SOFT_HYPHEN = re.compile(r"(\w*)[\ufffe\x02]\s*(\w*)")
_COMPOUND = re.compile(r"\b\w+-\w+\b")
_WORD = re.compile(r"\b\w+\b")
Vocabulary = tuple[frozenset[str], frozenset[str]]
# Other producers leave "exam-\nple": the same rule applies across the newline.
_LINE_HYPHEN = re.compile(r"(\w*)-\n[ \t]*(\w*)")
# C1 controls: pdfium emits them for glyphs with no Unicode mapping (bullets, daggers).
_C1 = re.compile(r"[\x80-\x9f]")
_HEADING = re.compile(r"^(\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,4}\.|[A-H]\.)\s+([A-Z][^.!?,;]{1,70})$")
# fmt: off
_NAMED_HEADINGS = frozenset({
    "abstract", "introduction", "background", "related work", "methods", "method", "results",
    "discussion", "conclusion", "conclusions", "references", "acknowledgments", "acknowledgements",
    "acknowledgment", "acknowledgement", "appendix", "bibliography",
})
_MINOR_WORDS = frozenset({
    "a", "an", "the", "of", "and", "or", "for", "in", "on", "with", "to", "via", "using", "from", "by",
    "vs", "at", "as", "into", "is", "are", "its",
})
# fmt: on
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Algorithm)\s+\d+[.:]")
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]?\d{0,2}$")
_PAGE_NUMBER = re.compile(r"^\d{1,4}$")


def known_vocabulary(raw_pages: list[str]) -> Vocabulary:
    """Collect the hyphenated compounds and plain words printed whole somewhere in the document."""
    compounds = {m.group(0).lower() for page in raw_pages for m in _COMPOUND.finditer(page)}
    words = {w.lower() for page in raw_pages for w in _WORD.findall(page)}
    return frozenset(compounds), frozenset(words)


def _dehyphenator(vocabulary: Vocabulary) -> Callable[[re.Match[str]], str]:
    """Return a replacer that drops line-end hyphens splitting one word."""
    compounds, words = vocabulary

    def replace(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        if not (left and right) or f"{left}-{right}".lower() in compounds:
            keep = True  # printed whole elsewhere with its hyphen: "citation-informed"
        elif f"{left}{right}".lower() in words:
            keep = False  # printed whole elsewhere without it: "SciBERT"
        else:
            keep = not (left[-1].islower() and right[0].islower())
        return f"{left}{'-' if keep else ''}{right}"

    return replace


def _is_heading(line: str) -> bool:
    """Tell whether a line looks like a section heading."""
    if len(line) > 80 or len(line.split()) > 10:
        return False
    if line.lower() in _NAMED_HEADINGS:
        return True
    match = _HEADING.match(line)
    if match is None:
        return False
    if "." in match.group(1).rstrip("."):
        return True  # "2.1 Node types": multi-level numbers are reliable on their own
    # "3 Results" or "3 Extracting Metadata"; "32. Each training epoch takes" is a sentence.
    words = match.group(2).split()
    return len(words) <= 3 or all(w[0].isupper() or w.lower() in _MINOR_WORDS for w in words)


def page_blocks(raw: str, vocabulary: Vocabulary = (frozenset(), frozenset())) -> list[tuple[str, str]]:
    """Split one page's raw text into ('heading'|'paragraph', text) blocks."""
    text = raw.replace("\r\n", "\n").replace("\r", "")  # a lone \r is pdfium's stand-in for unmapped glyphs
    text = _C1.sub("", text)
    replace = _dehyphenator(vocabulary)
    text = _LINE_HYPHEN.sub(replace, _SOFT_HYPHEN.sub(replace, text))
    lines = [squash(line) for line in text.split("\n")]
    # Page numbers sit alone on one of the first or last lines; inside a paragraph they break sentences.
    for i in [*range(min(3, len(lines))), *range(max(0, len(lines) - 3), len(lines))]:
        if _PAGE_NUMBER.match(lines[i]):
            lines[i] = ""
    lengths = sorted(len(line) for line in lines if len(line) >= 20)
    typical = lengths[int(len(lengths) * 0.8)] if lengths else 60
    blocks: list[tuple[str, str]] = []
    buffer: list[str] = []

    def flush() -> None:
        if buffer:
            blocks.append(("paragraph", " ".join(buffer)))
            buffer.clear()

    tables = {table.start: table for table in find_tables(lines)}
    i = 0
    while i < len(lines):
        line = lines[i]
        table = tables.get(i)
        if table is not None:
            flush()
            blocks.extend(("paragraph", part) for part in _table_blocks(lines, table))
            i = table.last + 1
            continue
        i += 1
        if not line:
            flush()
        elif _is_heading(line):
            flush()
            blocks.append(("heading", line))
        else:
            if _CAPTION.match(line):
                flush()
            buffer.append(line)
            # A short line ending a sentence closes its paragraph.
            if len(line) < 0.85 * typical and _SENTENCE_END.search(line):
                flush()
    flush()
    return blocks


def _table_blocks(lines: list[str], table: Table) -> list[str]:
    """A table as blocks: its caption, its header, then each row (and each line between rows) on its own."""
    parts = [" ".join(lines[k] for k in table.caption), " ".join(lines[k] for k in table.header)]
    parts += lines[table.first : table.last + 1]
    return [part for part in parts if part]


def _metadata(pdf: pdfium.PdfDocument) -> dict[str, str]:
    """Return the PDF's Info entries a byline may use ('' where one is missing or unreadable)."""
    values = {}
    for key in ("Title", "Author", "Subject", "CreationDate"):
        try:
            values[key] = pdf.get_metadata_value(key)
        except Exception:  # pdfium raises on odd metadata; the layout still has the facts
            values[key] = ""
    return values


def _byline(
    pdf: pdfium.PdfDocument, lines: list[TextLine], height: float, blocks: list[tuple[str, str]], filename: str
) -> Byline:
    """Return the title (from the metadata and page 1's layout, else page 1's first block, else the file name, with
    where it came from: "metadata", "layout", "first block" or "file name"), the authors and the year."""
    metadata = _metadata(pdf)
    title, source = choose_title(metadata["Title"], lines, height)
    if not title and blocks:
        title, source = blocks[0][1], "first block"
    title = title[:MAX_TITLE_CHARS].rstrip()
    if not title:
        title, source = file_stem(filename), "file name"
    return read_byline(title, source, lines, height, metadata)


def byline_metadata(byline: Byline) -> dict[str, object]:
    """Return the Document.metadata entries of a byline (authors, year, venue, ids), each with its source."""
    metadata: dict[str, object] = {"title_source": byline.title_source}
    if byline.authors:
        metadata.update(authors=list(byline.authors), authors_source=byline.authors_source)
    venue = byline.venue
    if venue.year:
        metadata.update(year=venue.year, year_source=venue.year_source)
    if venue.venue:
        metadata.update(venue=venue.venue, venue_kind=venue.venue_kind)
    if venue.doi:
        metadata["doi"] = venue.doi
    if venue.arxiv:
        metadata["arxiv"] = venue.arxiv
    return metadata


def parse_pdf(filename: str, data: bytes) -> list[ParsedDocument]:
    """Parse a PDF; raise IngestError when it is unreadable, encrypted or has no text."""
    pdf = open_pdf(filename, data)
    number = 0
    try:
        raw_pages: list[str] = []
        page_chars: list[list[tuple[int, str]]] = []
        first_lines: list[TextLine] = []
        height = 0.0
        for number in range(1, len(pdf) + 1):
            page = pdf[number - 1]
            textpage = page.get_textpage()
            text, lines = page_text(textpage.raw)
            raw_pages.append(text)
            page_chars.append([(c.index, c.text) for line in lines for c in line.chars if c.index >= 0])
            if number == 1:
                first_lines, height = lines, page.get_height()
            textpage.close()
            page.close()
        vocabulary = known_vocabulary(raw_pages)
        builder = DocumentBuilder()
        first_page: list[tuple[str, str]] = []
        for number, raw in enumerate(raw_pages, start=1):
            blocks = page_blocks(raw, vocabulary)
            first_page = first_page or blocks
            builder.start_page(number)
            for kind, text in blocks:
                if kind == "heading":
                    builder.heading(text)
                else:
                    builder.paragraph(text)
            builder.end_page()
        if builder.is_empty:
            raise IngestError(
                filename, "has no extractable text: it is probably a scan, so run OCR on it and upload the result"
            )
        byline = _byline(pdf, first_lines, height, first_page, filename)
        metadata = {"pages": len(pdf), **byline_metadata(byline)}
        document = builder.build(title=byline.title, source_format="pdf", metadata=metadata)
        document.source_bytes = data
        document.char_map = {
            str(page.number): align(document.text[page.start : page.end], page.start, page_chars[page.number - 1])
            for page in document.pages
        }
        return [document]
    except pdfium.PdfiumError as exc:
        raise page_error(filename, number) from exc
    finally:
        pdf.close()
