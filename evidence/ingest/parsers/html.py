"""HTML parser: block elements become paragraphs, h1-h6 become sections, no markup survives."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import ParsedDocument
from .common import MAX_TITLE_CHARS, file_stem, first_line_title

# fmt: off
DROPPED = frozenset({
    "script", "style", "nav", "noscript", "template", "head", "iframe", "object", "embed", "svg",
    "canvas", "form", "button", "select",
})
# fmt: on
HEADINGS = frozenset(f"h{n}" for n in range(1, 7))
# fmt: off
BLOCKS = frozenset({
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "section", "article",
    "main", "aside", "header", "footer", "figure", "figcaption", "table", "thead", "tbody", "tfoot",
    "tr", "caption", "address", "details", "summary", "hr", "body", "html",
})
# fmt: on
CELLS = frozenset({"td", "th"})
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


class _Walker:
    """Collect inline text into paragraphs, flushing at block boundaries."""

    def __init__(self, builder: DocumentBuilder) -> None:
        self.builder = builder
        self.buffer: list[str] = []
        self.first_h1 = ""

    def flush(self) -> None:
        if self.buffer:
            self.builder.paragraph("".join(self.buffer))
            self.buffer.clear()

    def walk(self, el: etree._Element) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if not tag or tag in DROPPED:
            return  # comments, processing instructions and dropped subtrees; the caller keeps the tail
        if tag in HEADINGS:
            self.flush()
            heading = squash(el.text_content())
            if tag == "h1" and not self.first_h1:
                self.first_h1 = heading
            self.builder.heading(heading)
            return
        block = tag in BLOCKS
        if block:
            self.flush()
        if tag == "br" or tag in CELLS:
            self.buffer.append(" ")
        if el.text:
            self.buffer.append(el.text)
        for child in el:
            self.walk(child)
            if child.tail:
                self.buffer.append(child.tail)
        if block:
            self.flush()
        elif tag in CELLS:
            self.buffer.append(" ")


def _decode(data: bytes) -> str:
    """Decode HTML bytes like a browser: BOM, then declared charset, then UTF-8, then Windows-1252."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    declared = _CHARSET.search(data[:4096])
    if declared:
        name = declared.group(1).decode("ascii").lower()
        # WHATWG: pages labelled Latin-1 or ASCII are decoded as Windows-1252.
        name = "cp1252" if name in {"iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii"} else name
        try:
            return data.decode(name, errors="replace")
        except LookupError:
            pass  # an unknown label: fall through to the guesses below
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _root(data: bytes) -> lxml.html.HtmlElement:
    """Parse HTML bytes into a tree from text we decoded ourselves (libxml2 would assume Latin-1)."""
    # lxml refuses a str that still carries an XML encoding declaration.
    return lxml.html.document_fromstring(_XML_DECLARATION.sub("", _decode(data), count=1))


def parse_html(filename: str, data: bytes) -> list[ParsedDocument]:
    """Parse an HTML page into canonical plain text with sections and paragraphs."""
    root = _root(data)
    title = ""
    title_el = root.find(".//title")
    if title_el is not None:
        title = squash(title_el.text_content())
    builder = DocumentBuilder()
    walker = _Walker(builder)
    body = root.find("body")
    walker.walk(body if body is not None else root)
    walker.flush()
    doc_title = title or walker.first_h1 or first_line_title(builder.text) or file_stem(filename)
    return [builder.build(title=doc_title[:MAX_TITLE_CHARS], source_format="html")]
