"""JSON Lines collections: SciFact corpus, BrowseComp-Plus documents, S2ORC dumps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import IngestError, ParsedDocument
from .common import MAX_TITLE_CHARS, first_line_title
from .s2orc import is_s2orc, parse_s2orc_object

SCIFACT_KEYS = frozenset({"doc_id", "abstract"})
BROWSECOMP_KEYS = frozenset({"docid", "text"})


def iter_lines(filename: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line number, object) for each non-blank line; a bad line raises IngestError."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise IngestError(
                filename, f"has invalid JSON on line {number} ({exc.msg}): fix that line and upload it again"
            ) from exc
        if not isinstance(obj, dict):
            raise IngestError(
                filename, f"has a line {number} that is not a JSON object: each line must be one document"
            )
        yield number, obj


def kind_of_line(obj: dict[str, Any]) -> str | None:
    """Return the collection kind a JSONL object belongs to, or None."""
    if obj.keys() >= SCIFACT_KEYS:
        return "scifact"
    if obj.keys() >= BROWSECOMP_KEYS:
        return "browsecomp"
    if is_s2orc(obj):
        return "s2orc"
    return None


def scifact_document(obj: dict[str, Any]) -> ParsedDocument:
    """Build a SciFact abstract: sentence region i is abstract sentence i."""
    abstract = obj["abstract"]
    if isinstance(abstract, str):
        abstract = [abstract]
    builder = DocumentBuilder()
    _, dropped = builder.sentence_paragraph([str(s) for s in abstract])
    metadata: dict[str, Any] = {"structured": bool(obj.get("structured", False))}
    if dropped:
        # Sentence regions skip these indices; consumers map rationale indices through this list.
        metadata["dropped_sentences"] = dropped
    return builder.build(
        title=str(obj.get("title") or ""),
        source_format="scifact",
        docid=str(obj["doc_id"]),
        metadata=metadata,
    )


def browsecomp_document(obj: dict[str, Any]) -> ParsedDocument:
    """Build a BrowseComp-Plus style document; blank lines separate paragraphs, lines are kept."""
    text = str(obj.get("text") or "")
    builder = DocumentBuilder()
    for block in text.replace("\r\n", "\n").split("\n\n"):
        builder.paragraph(block, keep_lines=True)
    title = squash(str(obj.get("title") or "")) or first_line_title(builder.text)
    metadata = {"url": str(obj["url"])} if obj.get("url") else {}
    return builder.build(
        title=title[:MAX_TITLE_CHARS],
        source_format="browsecomp",
        docid=str(obj["docid"]),
        metadata=metadata,
    )


def parse_jsonl(filename: str, text: str) -> list[ParsedDocument]:
    """Parse every line of a JSONL collection; all lines must be of the first line's kind."""
    docs: list[ParsedDocument] = []
    kind: str | None = None
    for number, obj in iter_lines(filename, text):
        line_kind = kind_of_line(obj)
        if line_kind is None or (kind is not None and line_kind != kind):
            raise IngestError(
                filename, f"has a line {number} that matches no known JSONL schema: check the file's layout"
            )
        kind = line_kind
        if kind == "scifact":
            doc = scifact_document(obj)
        elif kind == "browsecomp":
            doc = browsecomp_document(obj)
        else:
            doc = parse_s2orc_object(obj, filename)
        if doc.text:
            docs.append(doc)
    if kind is None:
        raise IngestError(filename, "has no JSON lines: check that it is the file you meant")
    return docs
