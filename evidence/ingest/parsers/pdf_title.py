"""A PDF's title: its metadata when that is a real title, else the largest-font lines near the top of page 1."""

from __future__ import annotations

import re
import unicodedata

from ..textnorm import squash
from .pdf_text import SCRIPT_SHIFT, SCRIPT_SIZE, TextLine

_BAD_METADATA = re.compile(
    r"untitled|^microsoft (?:word|powerpoint)|^doi\b|^https?:|^www\.|^\S+\.(?:dvi|docx?|tex|pdf|ps|rtf|odt)$|"
    r"^[\w\-]+$",  # one bare token: "main", "paper_final_v3"
    re.I,
)
# Lines near the top of page 1 that are never the title: running headers and footers, stamps, ids, dates.
JUNK = re.compile(
    r"proceedings|workshop|conference on|journal|\bvol\.|\bvolume\b|\bpp\.|pages \d|arxiv|doi|https?:|www\.|"
    r"issn|isbn|copyright|©|\(c\)|licen[cs]e|preprint|under review|accepted|received|published|submitted|"
    r"contents lists|homepage|association for|\bceur\b|^\d+$|\b(?:19|20)\d\d\b.*\b(?:19|20)\d\d\b",
    re.I,
)
_LABEL = re.compile(
    r"^(?:research article|original (?:research|article)|article|review|letter|abstract|"
    r"introduction|short paper|full paper|technical report|keywords?)\b",
    re.I,
)
AFFILIATION = re.compile(
    r"universit|institut|department|dept\.|school of|college|laborator|\blab\b|faculty|centre|center for|"
    r"\binc\.|corporation|research\b.*\b(?:ai|labs?)\b|@|\b[A-Z]{2} \d{5}\b",
    re.I,
)
_NAME = re.compile(r"^(?:[A-Z][\w'’\-]*\.?|van|von|de|der|da|del|di|la|le)$")
_SEPARATORS = re.compile(r",|;|\band\b|&|·|\||\s{2,}|[*†‡∗§¶]|\d")
# A line in a smaller size carries the title on only as a subtitle: after "Title:" or a dash, or mid-phrase
# ("... of", "and ..."); otherwise it is the author line ("Kyle Lo Zejiang Shen ..." under the title).
_OPENS_SUBTITLE = re.compile(r"[:\-–—]$")
_CONTINUES_PHRASE = re.compile(r"^(?:[a-z]|(?:of|and|for|in|on|with|to|via|using|from|by|the|a|an)\b)")


def marked_text(line: TextLine) -> str:
    """Return a line's text with each footnote mark (a small raised or lowered glyph) and each wide gap as " | ":
    names printed "Kyle Lo∗α Zejiang Shen∗τ" or set apart by space alone come out separated."""
    out: list[str] = []
    previous = None
    for c in line.chars:
        if c.generated:
            out.append(c.text)
            continue
        mark = c.size <= SCRIPT_SIZE * line.size and abs(c.y - line.baseline) >= SCRIPT_SHIFT * line.size
        accent = c.text in "´`¨ˆ˜ˇ" or (previous is not None and previous.text in "´`¨ˆ˜ˇ")
        if mark or (previous is not None and not accent and c.x - previous.right > 0.8 * line.size):
            out.append(" | ")
        if not mark:
            out.append(c.text)
            previous = c
    return "".join(out)


def looks_like_authors(text: str) -> bool:
    """Tell whether a line is a list of person names (two or more, each of two to four name words)."""
    parts = [p.split() for p in _SEPARATORS.split(text) if p.strip()]
    names = [p for p in parts if 2 <= len(p) <= 4 and all(_NAME.match(w) for w in p)]
    return (len(names) >= 2 and len(names) >= 0.6 * len(parts)) or (len(parts) == 1 and bool(names) and "," in text)


def _is_candidate(line: TextLine, page_height: float) -> bool:
    """Tell whether a line of page 1 may belong to the title."""
    text = squash(line.plain_text())
    if line.rotated or not line.body or len(re.findall(r"[^\W\d_]", text)) < 2:
        return False
    if page_height and line.baseline < 0.35 * page_height:  # the title sits in the upper part of page 1
        return False
    return not (JUNK.search(text) or _LABEL.match(text) or AFFILIATION.search(text) or "@" in text)


def _continues(line: TextLine) -> bool:
    """Tell whether a line could carry on a title it follows (affiliation words allowed, headers and labels not)."""
    text = squash(line.plain_text())
    return bool(line.body) and not line.rotated and not (JUNK.search(text) or _LABEL.match(text) or "@" in text)


def layout_title(lines: list[TextLine], page_height: float) -> str:
    """Return the largest-font block of lines near the top of page 1 ('' when there is none)."""
    candidates = [line for line in lines if _is_candidate(line, page_height)]
    if not candidates:
        return ""
    biggest = max(line.printed_size for line in candidates)
    ordered = sorted((line for line in lines if line.body and not line.rotated), key=lambda ln: -ln.baseline)
    start = next(i for i, line in enumerate(ordered) if line in candidates and line.printed_size >= biggest - 0.5)
    chosen = [ordered[start]]
    for line in ordered[start + 1 :]:
        previous = chosen[-1]
        if previous.baseline - line.baseline > 2.2 * max(previous.printed_size, line.printed_size):
            break
        same_size = line.printed_size >= biggest - 0.5
        subtitle = line.printed_size >= 0.7 * biggest and line.font == chosen[0].font
        # A title may name an institution ("... at the Medical Department of ..."); an affiliation line in the
        # title's own size and font is the title going on, not the authors' addresses.
        in_title_type = same_size and line.font == chosen[0].font and _continues(line)
        if not (line in candidates or in_title_type) or not (same_size or subtitle):
            break
        text = squash(line.plain_text())
        if looks_like_authors(text) or looks_like_authors(squash(marked_text(line))):
            break
        subtitle_opened = _OPENS_SUBTITLE.search(squash(previous.plain_text())) or _CONTINUES_PHRASE.match(text)
        if not same_size and not subtitle_opened:
            break
        chosen.append(line)
    title = ""
    for line in chosen:
        text = squash(line.plain_text())
        title = f"{title}{text}" if title.endswith("-") else f"{title} {text}"
    return squash(title)


def _words(text: str) -> list[str]:
    """Return the lower-cased words of a text, punctuation dropped."""
    return re.sub(r"[^\w\s]", " ", unicodedata.normalize("NFKC", text).lower()).split()


def metadata_is_plausible(title: str) -> bool:
    """Tell whether a metadata title looks like a real title (not a file name, a tool's stamp or a DOI)."""
    return 4 <= len(title) <= 300 and bool(re.search(r"[A-Za-z]{3}", title)) and not _BAD_METADATA.search(title)


def choose_title(metadata: str, lines: list[TextLine], page_height: float) -> tuple[str, str]:
    """Return the title from the metadata and page 1's lines, with where it came from: ("", "") when neither has
    one, else "metadata" or "layout"."""
    metadata = squash(metadata)
    layout = layout_title(lines, page_height)
    if not metadata_is_plausible(metadata) or JUNK.search(metadata):
        return (layout, "layout") if layout else ("", "")
    if not layout:
        return metadata, "metadata"
    meta_words, layout_words = _words(metadata), _words(layout)
    overlap = len(set(meta_words) & set(layout_words)) / max(1, len(set(meta_words) | set(layout_words)))
    page = " ".join(_words(" ".join(line.plain_text() for line in lines)))
    printed = len(meta_words) >= 3 and f" {' '.join(meta_words)} " in f" {page} "
    # Metadata is cleaner (no line breaks or marks) but is often a template's leftover: trust it when page 1 agrees.
    return (metadata, "metadata") if overlap >= 0.6 or printed else (layout, "layout")
