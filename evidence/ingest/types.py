"""Plain data types shared by the parsers, the chunker and the rest of the app (no Django here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Region:
    """A structural region of a document; ``document.text[start:end]`` is its exact text."""

    kind: str  # "section" (a heading), "paragraph" or "sentence"
    start: int
    end: int
    label: str = ""  # section name for paragraphs/sentences, heading text for sections
    page: int | None = None  # 1-based, only for paged formats


@dataclass(frozen=True)
class Page:
    """A page of a paged document as a character range of the canonical text."""

    number: int  # 1-based
    start: int
    end: int


@dataclass
class ParsedDocument:
    """A parsed document whose canonical ``text`` every offset in the system indexes."""

    title: str
    text: str
    source_format: str
    docid: str | None = None
    regions: list[Region] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    # The original bytes of a paged source (a PDF) and, per page, the runs mapping canonical offsets to the
    # source's character indices ([offset, index, length]); stored beside the document to draw spans on pages.
    source_bytes: bytes | None = None
    char_map: dict[str, list[list[int]]] | None = None

    def regions_of(self, kind: str) -> list[Region]:
        """Return the regions of one kind, in document order."""
        return [r for r in self.regions if r.kind == kind]


class IngestError(Exception):
    """A file that cannot be ingested; str() is one clear sentence naming the file.

    ``reason`` continues the file name as a predicate: IngestError("a.pdf", "is empty") reads "a.pdf is empty.".
    ``retryable``: whether trying the same bytes again can succeed (a parse stopped at its time limit on a busy
    machine); a file that is empty, damaged or in no supported format fails the same way every time.
    """

    def __init__(self, filename: str, reason: str, retryable: bool = False) -> None:
        self.filename = filename
        self.reason = reason.strip().rstrip(".")
        self.retryable = retryable
        super().__init__(f"{filename} {self.reason}.")


@dataclass(frozen=True)
class Limits:
    """Upload limits; zip sizes are uncompressed sizes, the total and the ratio taken over the whole archive too."""

    max_file_bytes: int = 50 * 1024 * 1024
    max_zip_members: int = 5000
    # Parsing, chunking and embedding cost grows with the expanded text: 400 MB of text took 112 s of a worker.
    max_zip_total_bytes: int = 200 * 1024 * 1024
    max_compression_ratio: float = 200.0
