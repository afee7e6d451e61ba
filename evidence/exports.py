"""A run's answer taken away: Markdown with its quotes, page numbers and links back to the audit, and the cited
papers as BibTeX and CSL-JSON.

Pure functions: plain values in, text out (views/exports.py gathers a run's values from the database). A quote is
written so a Markdown reader gives back exactly the stored text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

FORMATS = {
    # name: (media type, file extension)
    "markdown": ("text/markdown; charset=utf-8", "md"),
    "bibtex": ("application/x-bibtex; charset=utf-8", "bib"),
    "csl-json": ("application/vnd.citationstyles.csl+json; charset=utf-8", "json"),
}


@dataclass(frozen=True)
class Source:
    """A cited document's bibliographic facts, as far as the collection knows them."""

    docid: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str = ""
    venue: str = ""
    file_name: str = ""


@dataclass(frozen=True)
class CitedSpan:
    number: int
    source: Source
    quote: str
    start: int
    end: int
    page: int | None
    audit_url: str


@dataclass(frozen=True)
class AnswerExport:
    """Everything the Markdown export says about one run."""

    question: str
    collection: str
    run_url: str
    short_state: str  # "short", "withheld", "not_found", or "none"
    short_answer: str = ""
    confidence: float | None = None
    text: Sequence[tuple[str, int | None]] = ()  # the answer's pieces: (text, citation number or None)
    citations: Sequence[CitedSpan] = field(default_factory=tuple)


# ------------------------------------------------------------------ Markdown

# CommonMark lets a backslash escape any ASCII punctuation; these are the ones that can start markup in a quote.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&!])")
_LINE_START = re.compile(r"^(\s*)([-+=]|\d+[.)])", re.M)


def markdown_text(text: str) -> str:
    """Escape text so a Markdown reader shows it as written (no emphasis, links, lists or headings)."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2) if m.group(2)[0] in "-+=" else
                           m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], escaped)  # fmt: skip


def answer_markdown(export: AnswerExport) -> str:
    """The answer with numbered citations, then each cited span quoted with its document, page and audit link."""
    lines = [f"# {markdown_text(export.question)}", ""]
    if export.short_state == "short":
        confidence = ""
        if export.confidence is not None:
            confidence = f" (confidence {export.confidence:.2f}: the chance it is right)"
        lines += [f"**Short answer:** {markdown_text(export.short_answer)}{confidence}", ""]
    elif export.short_state == "withheld":
        lines += ["**No short answer:** no candidate was likely enough to be right; read the evidence below.", ""]
    elif export.short_state == "not_found":
        lines += ["**Not found:** the documents in this collection do not answer this question.", ""]
    body = "".join(markdown_text(text) if number is None else f"[{number}]" for text, number in export.text)
    if body.strip():
        lines += [body.strip(), ""]
    if export.citations:
        lines += ["## Evidence", ""]
    for cited in export.citations:
        where = [f"*{markdown_text(cited.source.title)}*", f"`{cited.source.docid}`"]
        if cited.page is not None:
            where.append(f"page {cited.page}")
        where.append(f"characters {cited.start}–{cited.end}")
        lines.append(f"{cited.number}. {', '.join(where)} ([check it in the audit]({cited.audit_url}))")
        lines.append("")
        lines += [f"   > {line}" if line else "   >" for line in markdown_text(cited.quote).split("\n")]
        lines.append("")
    lines.append(f"From Evidence desk, collection “{markdown_text(export.collection)}”: <{export.run_url}>")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ CSL-JSON and BibTeX


def csl_items(sources: Sequence[Source]) -> list[dict[str, object]]:
    """CSL-JSON items (the format Zotero, Pandoc and citeproc read), one per source, keyed by docid."""
    items: list[dict[str, object]] = []
    for source in sources:
        item: dict[str, object] = {"id": source.docid, "type": "article-journal" if source.venue else "document",
                                   "title": source.title}  # fmt: skip
        if source.authors:
            item["author"] = [_csl_name(name) for name in source.authors]
        if source.year:
            item["issued"] = {"date-parts": [[source.year]]}
        if source.doi:
            item["DOI"] = source.doi
        if source.venue:
            item["container-title"] = source.venue
        if source.file_name:
            item["note"] = f"File: {source.file_name}"
        items.append(item)
    return items


def _csl_name(name: str) -> dict[str, str]:
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
    else:
        given, _, family = name.strip().rpartition(" ")
    return {"family": family, "given": given} if given else {"literal": family}


_BIBTEX_SPECIAL = re.compile(r"([\\{}%&#_$^~])")
_BIBTEX_REPLACEMENTS = {"\\": r"\textbackslash{}", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def bibtex_value(text: str) -> str:
    """A field value safe inside BibTeX braces: LaTeX's special characters escaped, braces balanced."""
    return _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_REPLACEMENTS.get(m.group(1), "\\" + m.group(1)), text)


def bibtex_key(docid: str, taken: set[str]) -> str:
    """A citation key from the docid: letters, digits and ``-_:.`` only, unique within the file."""
    base = re.sub(r"[^A-Za-z0-9_:.\-]+", "_", docid).strip("_") or "source"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    taken.add(key)
    return key


def bibtex(sources: Sequence[Source]) -> str:
    """One BibTeX entry per source (@article with a venue, else @misc)."""
    entries, taken = [], set()
    for source in sources:
        fields = [("title", "{" + bibtex_value(source.title) + "}")]  # double braces keep the title's capitals
        if source.authors:
            fields.append(("author", " and ".join(bibtex_value(a) for a in source.authors)))
        if source.year:
            fields.append(("year", str(source.year)))
        if source.venue:
            fields.append(("journal", bibtex_value(source.venue)))
        if source.doi:
            fields.append(("doi", bibtex_value(source.doi)))
        note = f"Evidence desk docid {source.docid}" + (f", file {source.file_name}" if source.file_name else "")
        fields.append(("note", bibtex_value(note)))
        kind = "article" if source.venue else "misc"
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{bibtex_key(source.docid, taken)},\n{body}\n}}\n")
    return "\n".join(entries)
