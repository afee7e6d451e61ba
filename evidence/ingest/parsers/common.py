"""Small helpers shared by the format parsers."""

from __future__ import annotations

from pathlib import PurePosixPath

from ..textnorm import squash
from ..types import IngestError

MAX_TITLE_CHARS = 300


def decode_utf8(filename: str, data: bytes) -> str:
    """Decode UTF-8 (a BOM is dropped) or raise IngestError naming the bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            filename, f"is not valid UTF-8 text (bad byte at offset {exc.start}): save it as UTF-8 and upload it again"
        ) from exc


def first_line_title(text: str) -> str:
    """Return the first non-empty line, trimmed to a title's length."""
    for line in text.splitlines():
        line = squash(line)
        if line:
            return line[:MAX_TITLE_CHARS].rstrip()
    return ""


def file_stem(filename: str) -> str:
    """Return the file name without folders and extension, as a last-resort title."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    return name.split(".")[0] if not name.startswith(".") else name
