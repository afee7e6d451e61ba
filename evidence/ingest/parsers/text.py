"""Plain text and Markdown parsers."""

from __future__ import annotations

import re

from ..builder import DocumentBuilder
from ..types import ParsedDocument
from .common import MAX_TITLE_CHARS, file_stem, first_line_title

_BLANK = re.compile(r"\n[ \t]*\n+")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_BULLET = re.compile(r"^ {0,3}(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)")
_QUOTE = re.compile(r"^ {0,3}> ?")
_RULE = re.compile(r"^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def parse_text(filename: str, text: str) -> list[ParsedDocument]:
    """Parse plain text: blank lines separate paragraphs, lines inside one are joined."""
    builder = DocumentBuilder()
    for block in _BLANK.split(text):
        builder.paragraph(block)
    title = first_line_title(text) or file_stem(filename)
    return [builder.build(title=title, source_format="text")]


def _inline(text: str) -> str:
    """Drop inline Markdown markup, keeping the readable text."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    return _EMPHASIS.sub("", text)


def parse_markdown(filename: str, text: str) -> list[ParsedDocument]:
    """Parse Markdown: headings become sections, list items and paragraphs become paragraphs."""
    builder = DocumentBuilder()
    title = ""
    lines = text.split("\n")
    buffer: list[str] = []

    def flush() -> None:
        if buffer:
            builder.paragraph(_inline(" ".join(buffer)))
            buffer.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            flush()
            code: list[str] = []
            i += 1
            while i < len(lines) and not _FENCE.match(lines[i]):
                code.append(lines[i])
                i += 1
            builder.paragraph("\n".join(code), keep_lines=True)
        elif (atx := _ATX.match(line)) is not None:
            flush()
            heading = _inline(atx.group(2))
            title = title or (heading if len(atx.group(1)) == 1 else "")
            builder.heading(heading)
        elif buffer and _SETEXT.match(line) and not _RULE.match(buffer[-1]):
            heading = _inline(buffer.pop())
            flush()
            title = title or (heading if line.strip().startswith("=") else "")
            builder.heading(heading)
        elif not line.strip() or _RULE.match(line):
            flush()
        elif _BULLET.match(line):
            flush()
            buffer.append(_BULLET.sub("", line))
        else:
            buffer.append(_QUOTE.sub("", line))
        i += 1
    flush()
    title = title or first_line_title(_inline(text).replace("#", "")) or file_stem(filename)
    return [builder.build(title=title[:MAX_TITLE_CHARS], source_format="markdown")]
