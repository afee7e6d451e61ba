"""A PDF's byline: its title without author names glued on, its authors and its year, from page 1's layout lines
and the PDF's metadata (which only helps where page 1 confirms it).

The author block is the first row of person names below the title, then the rows that carry it on in the same
font and size; a grid of authors ("name, affiliation lines, name, ...") is read down the same columns until a
heading such as "Abstract" or a wide gap. Footnote marks, superscript digits and affiliation letters split names.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from ...names import PARTICLES, fold, name_parts
from ..textnorm import squash
from .pdf_text import TextLine
from .pdf_title import AFFILIATION, JUNK, marked_text
from .pdf_venue import Venue, read_venue

# Spacing accents some producers print as their own glyph beside the letter ("Andre´", "Gy ´ ongyi").
_ACCENTS = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c"}
_ACCENT_AFTER = re.compile(r"(\w)([´`¨ˆ˜ˇ])(?=[\s|,;]|$)")
_ACCENT_BEFORE = re.compile(r"\s*([´`¨ˆ˜ˇ])\s*(\w)")
_SEPARATORS = re.compile(r"[|,;&·•]|\band\b|\s{2,}|[*†‡∗§¶⋆♯♮♭]|\d", re.I)
_INITIAL = re.compile(r"^[A-Z]\.(?:-?[A-Z]\.)*$|^[A-Z]$")
_WORD = re.compile(r"^[A-ZÀ-ÖØ-Þ][\w'’\-]*[a-zß-ÿ\w]$|^[A-Z][a-z]?\.$")
_STOP = re.compile(r"^(?:abstract|key ?words?|index terms|introduction|\d+\.? ?introduction|summary)\b", re.I)
_META_NOISE = re.compile(r"\{?\bet al\.?\}?|\([^)]*\)", re.I)
_NOT_PERSON = re.compile(r"\b(?:services|computing|users?|admin\w*|team|group|office|staff|editors?)\b", re.I)


@dataclass(frozen=True)
class Byline:
    """The bibliographic facts page 1 and the metadata give, with where each came from."""

    title: str
    title_source: str
    authors: tuple[str, ...] = ()
    authors_source: str = ""  # "layout" or "metadata"
    venue: Venue = field(default_factory=Venue)


def _accented(text: str) -> str:
    """Put spacing accents back on their letters: "Andre´" -> "André", "Gy ´ ongyi" -> "Gyóngyi"."""
    text = _ACCENT_AFTER.sub(lambda m: unicodedata.normalize("NFC", m.group(1) + _ACCENTS[m.group(2)]), text)
    text = _ACCENT_BEFORE.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)]), text)
    return re.sub(r"\s*[´`¨ˆ˜ˇ]\s*", " ", text)


def _is_name_word(word: str) -> bool:
    return bool(_WORD.match(word) or _INITIAL.match(word)) or word.lower() in PARTICLES


def _cased(word: str) -> str:
    """Return a name word in its usual case: "QUIRK" -> "Quirk", "O’CONNELL" -> "O’Connell"; "Md." stays."""
    if len(word) > 2 and word.isupper():
        return re.sub(r"(^|[\-'’])(\w)(\w*)", lambda m: m.group(1) + m.group(2) + m.group(3).lower(), word)
    return word


def _split_run(words: list[str]) -> list[list[str]]:
    """Split a run of name words printed with no separator ("Zoltan Gyongyi Hector Garcia-Molina") into names:
    each ends at its second full word, initials and particles going with the word after them."""
    names: list[list[str]] = [[]]
    for word in words:
        names[-1].append(word)
        full = [w for w in names[-1] if not _INITIAL.match(w) and w.lower() not in PARTICLES]
        if len(full) >= 2:
            names.append([])
    if not names[-1]:
        names.pop()
    elif len(names) > 1 and len(names[-1]) == 1:
        names[-2] += names.pop()
    return names


def parse_names(text: str) -> list[str]:
    """Return the person names a line lists ([] when it is not a list of names)."""
    if "@" in text or AFFILIATION.search(text) or JUNK.search(text) or _STOP.match(text.strip()):
        return []
    parts = [part.split() for part in _SEPARATORS.split(_accented(text)) if part.strip(" .")]
    names: list[list[str]] = []
    for words in parts:
        full = [w for w in words if not _INITIAL.match(w) and w.lower() not in PARTICLES]
        if not words or not all(_is_name_word(w) for w in words) or not full:
            continue
        if len(full) >= 5:
            names += _split_run(words)
        elif len(full) >= 2 or (len(full) == 1 and len(words) >= 2):
            names.append(words)
    if not names or len(names) < 0.6 * len(parts):
        return []
    return [" ".join(_cased(w) for w in name) for name in names]


def _rows(lines: list[TextLine]) -> list[list[TextLine]]:
    """Group lines into rows: the same font and size on (nearly) the same baseline, left to right."""
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda ln: -ln.baseline):
        for row in rows[-6:]:
            first = row[0]
            if (first.font, first.printed_size) == (line.font, line.printed_size) and abs(
                first.baseline - line.baseline
            ) <= 0.3 * max(line.printed_size, 1):
                row.append(line)
                break
        else:
            rows.append([line])
    return [sorted(row, key=lambda ln: ln.x0) for row in rows]


def _row_text(row: list[TextLine]) -> str:
    return " | ".join(squash(marked_text(line)) for line in row)


def layout_authors(lines: list[TextLine], below: float) -> list[str]:
    """Return the authors printed in the first rows of names below the baseline `below` (the title's last line)."""
    body = [line for line in lines if line.body and not line.rotated and line.baseline < below - 1]
    rows = _rows(body)
    start = None
    for i, row in enumerate(rows[:8]):
        # An "Abstract" heading may stand beside the authors (CHI's side column): look past it.
        if parse_names(_row_text(row)):
            start = i
            break
    if start is None:
        return []
    first = rows[start]
    font, size = first[0].font, first[0].printed_size
    columns = [line.x0 for line in first]
    left, right = min(columns) - 10, max(line.x1 for line in first) + 10
    authors = parse_names(_row_text(first))
    last = first[0].baseline
    carrying_on = True  # rows straight after the first one, in its type, continue it
    for row in rows[start + 1 :]:
        inside = [line for line in row if line.x1 > left and line.x0 < right]
        if not inside:
            continue
        if last - inside[0].baseline > max(30.0, 3.5 * size):
            break
        text = squash(inside[0].plain_text())
        if _STOP.match(text) or len(text) > 120:
            break
        last = inside[0].baseline
        same_type = (inside[0].font, inside[0].printed_size) == (font, size)
        names = parse_names(_row_text(inside)) if same_type else []
        if same_type and not names:
            break
        if names and (carrying_on or all(any(abs(ln.x0 - x) < 4 for x in columns) for ln in inside)):
            authors += names
        else:
            carrying_on = False
    return list(dict.fromkeys(authors))


def metadata_authors(value: str) -> list[str]:
    """Return the names a PDF's Author entry lists ("A ; B", "A, B and C"), [] when it is not a list of names
    ("ibm", "chrisq", a department)."""
    parts = re.split(r";|,|\band\b|&", _META_NOISE.sub(" ", value))
    names = [" ".join(_cased(w) for w in part.split()) for part in parts if part.strip()]
    good = [n for n in names if 2 <= len(n.split()) <= 5 and all(_is_name_word(w) for w in n.split())
            and not (_NOT_PERSON.search(n) or AFFILIATION.search(n))]  # fmt: skip
    return good if good and len(good) == len(names) else []


def choose_authors(layout: list[str], metadata: list[str], page: str) -> tuple[list[str], str]:
    """Return the authors and their source: the metadata's list when page 1 prints every family name in it and
    it is longer than what the layout found, else the layout's, else a metadata list page 1 confirms in part."""
    printed = f" {fold(page)} "
    confirmed = [name for name in metadata if f" {fold(name_parts(name)[0])} " in printed]
    if metadata and len(confirmed) == len(metadata) and len(metadata) > len(layout):
        return metadata, "metadata"
    if layout:
        return layout, "layout"
    if confirmed:
        return metadata, "metadata"
    return [], ""


def strip_authors(title: str, authors: list[str]) -> str:
    """Return the title without author names glued on its end ("... Documents Kyle Lo Zejiang Shen ...")."""
    if not authors:
        return title
    first = authors[0].split()
    for size in (len(first), 2):
        pattern = r"\s+" + r"\W*\s*".join(re.escape(w) for w in first[:size]) + r"\b"
        match = re.search(pattern, title, re.I)
        if match and match.start() > 0 and size <= len(first):
            return title[: match.start()].rstrip(" ,;:")
    return title


def _title_bottom(lines: list[TextLine], title: str) -> float | None:
    """Return the baseline of the title's last line on page 1: from the largest line printed inside the title,
    down the lines that carry it on."""
    words = f" {fold(title)} "
    inside = sorted((line for line in lines if line.body and not line.rotated and len(fold(line.plain_text())) >= 3
                     and f" {fold(line.plain_text())} " in words), key=lambda ln: -ln.baseline)  # fmt: skip
    if not inside:
        return None
    anchor = max(inside, key=lambda ln: ln.printed_size)
    bottom = anchor.baseline
    for line in inside[inside.index(anchor) + 1 :]:
        if bottom - line.baseline > 2.5 * max(line.printed_size, anchor.printed_size):
            break
        bottom = line.baseline
    return bottom


def read_byline(
    title: str, title_source: str, lines: list[TextLine], page_height: float, metadata: dict[str, str],
    today: date | None = None,
) -> Byline:  # fmt: skip
    """Return the byline of a PDF from its chosen title, page 1's lines and its metadata (Author, Subject, ...)."""
    bottom = _title_bottom(lines, title)
    below = bottom if bottom is not None else page_height
    layout = layout_authors(lines, below)
    page = " ".join(line.plain_text() for line in lines)
    authors, source = choose_authors(layout, metadata_authors(metadata.get("Author", "")), page)
    ordered = sorted(lines, key=lambda ln: (ln.rotated, -ln.baseline, ln.x0))
    venue = read_venue([squash(line.plain_text()) for line in ordered], metadata, today)
    return Byline(strip_authors(title, authors), title_source, tuple(authors), source, venue)
