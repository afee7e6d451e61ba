"""Format detection, upload expansion and the single parse entry point."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from ..textnorm import clean_text
from ..types import IngestError, Limits, ParsedDocument
from .archive import expand_zip, is_zip
from .common import decode_utf8

__all__ = ["ACCEPTED_FORMATS", "FORMATS", "detect_format", "expand_upload", "parse_file"]

DEFAULT_LIMITS = Limits()
_UNREADABLE_JSON = "could not be read: its JSON is nested too deeply or holds a number too long to parse; re-export it"
_FIX = "check that the file is complete and in that format, then upload it again"
# The one list of accepted formats: upload errors and the upload form both show it.
ACCEPTED_FORMATS = (
    "PDF, JATS XML, HTML, plain text, Markdown, S2ORC or QASPER JSON, JSON lines (.jsonl), a Zotero, BibTeX or "
    "CSL-JSON library with its PDFs, or a zip of these"
)
_FORMAT_NAMES = {
    "pdf": "a PDF",
    "text": "plain text",
    "markdown": "Markdown",
    "html": "HTML",
    "jats": "JATS XML",
    "s2orc": "S2ORC JSON",
    "qasper": "QASPER JSON",
    "scifact": "SciFact JSONL",
    "browsecomp": "BrowseComp JSONL",
}
FORMATS = ("pdf", "text", "markdown", "html", "jats", "s2orc", "qasper", "scifact", "browsecomp")
EXTENSIONS = {
    ".pdf": "pdf",
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".xml": "jats",
    ".nxml": "jats",
}


def _extension(filename: str) -> str:
    """Return the lower-cased last extension of a file name ('' when none)."""
    return PurePosixPath(filename.replace("\\", "/")).suffix.lower()


def _json_kind(filename: str, obj: Any) -> str:
    """Return the JSON schema a parsed object matches, or raise IngestError."""
    from .qasper import is_qasper
    from .s2orc import is_s2orc

    if is_s2orc(obj):
        return "s2orc"
    if is_qasper(obj):
        return "qasper"
    raise IngestError(filename, "is JSON that matches no known schema: upload S2ORC or QASPER JSON, or JSON lines")


def _jsonl_kind(filename: str, text: str) -> str:
    """Return the collection kind of a JSONL text from its first line, or raise IngestError."""
    from .jsonl import iter_lines, kind_of_line

    for number, obj in iter_lines(filename, text):
        kind = kind_of_line(obj)
        if kind is None:
            raise IngestError(
                filename, f"has a line {number} that matches no known JSONL schema: check the file's layout"
            )
        return kind
    raise IngestError(filename, "has no JSON lines: check that it is the file you meant")


def _sniff(filename: str, data: bytes) -> tuple[str, Any]:
    """Detect the format; for JSON kinds also return the decoded payload so it is parsed once."""
    ext = _extension(filename)
    if is_zip(filename, data):
        raise IngestError(filename, "is a zip archive: expand it with expand_upload first")
    if ext in EXTENSIONS:
        return EXTENSIONS[ext], None
    if data.startswith(b"%PDF-"):
        return "pdf", None
    head = data.lstrip()[:1]
    if ext in {".json", ".jsonl", ".ndjson"} or head in {b"{", b"["}:
        text = decode_utf8(filename, data)
        if ext in {".jsonl", ".ndjson"}:
            return _jsonl_kind(filename, text), text
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg == "Extra data" and exc.lineno > 1:  # several objects, one per line: JSONL
                return _jsonl_kind(filename, text), text
            raise IngestError(
                filename, f"is malformed JSON ({exc.msg} on line {exc.lineno}): fix it or export it again"
            ) from exc
        return _json_kind(filename, obj), obj
    raise IngestError(
        filename,
        f"has an unsupported format ({ext or 'no extension'}): upload {ACCEPTED_FORMATS}",
    )


def detect_format(filename: str, data: bytes) -> str:
    """Return the format name of a file, raising IngestError for unknown formats."""
    try:
        return _sniff(filename, data)[0]
    except IngestError:
        raise
    except (RecursionError, ValueError) as exc:  # absurdly nested JSON, integers past Python's digit limit
        raise IngestError(filename, _UNREADABLE_JSON) from exc


def expand_upload(filename: str, data: bytes, limits: Limits = DEFAULT_LIMITS) -> list[tuple[str, bytes]]:
    """Turn an upload into (name, bytes) files: a zip becomes its safe members."""
    if is_zip(filename, data):
        return expand_zip(filename, data, limits)
    return [(filename, data)]


def _parse(filename: str, data: bytes, fmt: str, payload: Any) -> list[ParsedDocument]:
    """Dispatch to the parser of one format."""
    from . import html, jats, jsonl, pdf, qasper, s2orc, text

    if fmt in {"scifact", "browsecomp"} or (fmt == "s2orc" and isinstance(payload, str)):
        return jsonl.parse_jsonl(filename, payload)
    if fmt == "s2orc":
        return [s2orc.parse_s2orc_object(payload, filename)]
    if fmt == "qasper":
        return qasper.parse_qasper(payload)
    binary: dict[str, Callable[[str, bytes], list[ParsedDocument]]] = {
        "pdf": pdf.parse_pdf,
        "html": html.parse_html,
        "jats": jats.parse_jats,
    }
    if fmt in binary:
        return binary[fmt](filename, data)
    content = clean_text(decode_utf8(filename, data))  # line endings first: blank-line splits rely on "\n"
    return text.parse_markdown(filename, content) if fmt == "markdown" else text.parse_text(filename, content)


def parse_file(filename: str, data: bytes, limits: Limits = DEFAULT_LIMITS) -> list[ParsedDocument]:
    """Parse one (non-zip) file into documents; every failure is an IngestError naming the file."""
    if not data:
        raise IngestError(
            filename,
            "is empty (0 bytes): the copy you picked may not have finished downloading or saving; open it to check, "
            "then upload a complete copy",
        )
    if len(data) > limits.max_file_bytes:
        raise IngestError(filename, f"is {len(data)} bytes, over the limit of {limits.max_file_bytes}: split it")
    fmt = "a supported format"
    try:
        fmt, payload = _sniff(filename, data)
        docs = _parse(filename, data, fmt, payload)
    except IngestError:
        raise
    except RecursionError as exc:
        raise IngestError(
            filename, "is nested too deeply to parse: flatten or re-export it and upload it again"
        ) from exc
    except Exception as exc:  # parsers are third-party code: no raw exception (class name, server path) may escape
        raise IngestError(filename, f"could not be read as {_FORMAT_NAMES.get(fmt, fmt)}: {_FIX}") from exc
    docs = [d for d in docs if d.text]
    if not docs:
        raise IngestError(
            filename, "has no text to index (a scanned PDF needs OCR first): upload a copy with a text layer"
        )
    return docs
