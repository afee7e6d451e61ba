"""Assemble canonical text block by block while recording exact regions and pages."""

from __future__ import annotations

from typing import Any

from ..text import split_sentences
from .textnorm import clean_text, squash
from .types import Page, ParsedDocument, Region

BLOCK_SEPARATOR = "\n\n"


class DocumentBuilder:
    """Append headings and paragraphs; every region offset indexes the text being built."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.regions: list[Region] = []
        self.pages: list[Page] = []
        self.section = ""
        self._page: int | None = None
        self._page_start: int | None = None

    @property
    def is_empty(self) -> bool:
        """Tell whether no text has been added yet."""
        return self._length == 0

    @property
    def text(self) -> str:
        """Return the canonical text built so far."""
        return "".join(self._parts)

    def _append(self, block: str) -> int:
        """Append a non-empty stripped block and return its start offset."""
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._length += len(BLOCK_SEPARATOR)
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        if self._page is not None and self._page_start is None:
            self._page_start = start
        return start

    def heading(self, text: str, section: str | None = None) -> None:
        """Add a section heading; later paragraphs carry ``section`` (default: the heading) as label."""
        block = squash(text)
        if section is not None:
            self.section = squash(section)
        elif block:
            self.section = block
        if not block:
            return
        start = self._append(block)
        self.regions.append(Region("section", start, start + len(block), block, self._page))

    def paragraph(self, text: str, *, keep_lines: bool = False) -> Region | None:
        """Add a paragraph (whitespace collapsed unless keep_lines) with its sentence regions."""
        if keep_lines:
            lines = (line.strip() for line in clean_text(text).split("\n"))
            block = "\n".join(line for line in lines if line)
        else:
            block = squash(text)
        if not block:
            return None
        start = self._append(block)
        region = Region("paragraph", start, start + len(block), self.section, self._page)
        self.regions.append(region)
        for s, e in split_sentences(block):
            self.regions.append(Region("sentence", start + s, start + e, self.section, self._page))
        return region

    def sentence_paragraph(self, sentences: list[str]) -> tuple[Region | None, list[int]]:
        """Add given sentences joined by one space, one sentence region each, in order.

        Returns the paragraph region and the indices of sentences dropped for being empty.
        """
        kept: list[str] = []
        dropped: list[int] = []
        for i, sentence in enumerate(sentences):
            cleaned = clean_text(sentence).strip()
            if cleaned:
                kept.append(cleaned)
            else:
                dropped.append(i)
        if not kept:
            return None, dropped
        start = self._append(" ".join(kept))
        pos = start
        for sentence in kept:
            self.regions.append(Region("sentence", pos, pos + len(sentence), self.section, self._page))
            pos += len(sentence) + 1
        region = Region("paragraph", start, pos - 1, self.section, self._page)
        self.regions.append(region)
        return region, dropped

    def start_page(self, number: int) -> None:
        """Begin a page; blocks added until end_page belong to it."""
        self._page = number
        self._page_start = None

    def end_page(self) -> None:
        """Close the current page and record its character range."""
        if self._page is None:
            return
        start = self._length if self._page_start is None else self._page_start
        self.pages.append(Page(self._page, start, self._length))
        self._page = None
        self._page_start = None

    def build(
        self,
        *,
        title: str,
        source_format: str,
        docid: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> ParsedDocument:
        """Return the finished document with regions in text order."""
        regions = sorted(self.regions, key=lambda r: (r.start, -r.end))
        return ParsedDocument(
            title=squash(title)[:500],
            text="".join(self._parts),
            source_format=source_format,
            docid=docid,
            regions=regions,
            pages=list(self.pages),
            metadata=dict(metadata or {}),
        )
