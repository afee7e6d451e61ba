"""A run's answer taken away: Markdown with its quotes, page numbers and links back to the audit, and the cited
papers as BibTeX and CSL-JSON.

Pure functions: plain values in, text out (presenting/exports.py gathers a run's values from the database). A
quote is written so a Markdown reader gives back exactly the stored text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..names import name_parts

_PROCEEDINGS = re.compile(r"\b(?:proceedings|conference|symposium|workshop|meeting)\b", re.I)
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
    kind: str = ""  # "proceedings" or "journal" when the venue's kind is known; else told from the venue's name
    eprint: str = ""  # an arXiv identifier: "2302.07302"

    @property
    def entry_kind(self) -> str:
        """Return "proceedings", "journal" (an article anywhere: its facts are known) or "" (nothing is known)."""
        if self.kind in {"proceedings", "journal"}:
            return self.kind
        if self.venue and _PROCEEDINGS.search(self.venue) and not re.search(r"\bjournal\b", self.venue, re.I):
            return "proceedings"
        return "journal" if self.authors or self.year or self.venue or self.doi or self.eprint else ""


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
    types = {"proceedings": "paper-conference", "journal": "article-journal", "": "document"}
    items: list[dict[str, object]] = []
    for source in sources:
        item: dict[str, object] = {"id": source.docid, "type": types[source.entry_kind], "title": source.title}
        if source.authors:
            item["author"] = [_csl_name(name) for name in source.authors]
        if source.year:
            item["issued"] = {"date-parts": [[source.year]]}
        if source.doi:
            item["DOI"] = source.doi
        if source.venue:
            item["container-title"] = source.venue
        if source.eprint:
            item["URL"] = f"https://arxiv.org/abs/{source.eprint}"
        if source.file_name:
            item["note"] = f"File: {source.file_name}"
        items.append(item)
    return items


def _csl_name(name: str) -> dict[str, str]:
    family, given = name_parts(name.strip())
    return {"family": family, "given": given} if given else {"literal": family}


def bibtex_name(name: str) -> str:
    """A name as BibTeX reads it unambiguously: "Family, Given"."""
    family, given = name_parts(name.strip())
    return f"{family}, {given}" if given else family


_BIBTEX_SPECIAL = re.compile(r"([\\{}%&#_$^~])")
_BIBTEX_REPLACEMENTS = {"\\": r"\textbackslash{}", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}
_STOPWORDS = frozenset({"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "from", "by", "at", "is"})


def bibtex_value(text: str) -> str:
    """A field value safe inside BibTeX braces: LaTeX's special characters escaped, braces balanced."""
    return _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_REPLACEMENTS.get(m.group(1), "\\" + m.group(1)), text)


def _ascii_word(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower())


def citation_key(source: Source) -> str:
    """The usual key of a paper: first author's family name, year and the title's first word ("lo2023papermage");
    the docid when neither author nor year is known."""
    if not (source.authors or source.year):
        return source.docid
    family = _ascii_word(name_parts(source.authors[0])[0].split()[-1]) if source.authors else ""
    words = [_ascii_word(w) for w in re.split(r"[\s:\-–—/]+", source.title)]
    word = next((w for w in words if w and w not in _STOPWORDS), "")
    return f"{family}{source.year or ''}{word}" or source.docid


def bibtex_key(docid: str, taken: set[str]) -> str:
    """A citation key from the docid: letters, digits and ``-_:.`` only, unique within the file."""
    base = re.sub(r"[^A-Za-z0-9_:.\-]+", "_", docid).strip("_") or "source"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    taken.add(key)
    return key


def bibtex(sources: Sequence[Source]) -> str:
    """One BibTeX entry per source: @inproceedings or @article when anything beyond the title is known, else @misc."""
    entries, taken = [], set()
    for source in sources:
        kind = source.entry_kind
        fields = [("title", "{" + bibtex_value(source.title) + "}")]  # double braces keep the title's capitals
        if source.authors:
            fields.append(("author", " and ".join(bibtex_value(bibtex_name(a)) for a in source.authors)))
        if source.year:
            fields.append(("year", str(source.year)))
        if source.venue:
            fields.append(("booktitle" if kind == "proceedings" else "journal", bibtex_value(source.venue)))
        if source.doi:
            fields.append(("doi", bibtex_value(source.doi)))
        if source.eprint:
            fields += [("eprint", bibtex_value(source.eprint)), ("archivePrefix", "arXiv")]
        note = f"Evidence desk docid {source.docid}" + (f", file {source.file_name}" if source.file_name else "")
        fields.append(("note", bibtex_value(note)))
        entry_type = {"proceedings": "inproceedings", "journal": "article"}.get(kind, "misc")
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{entry_type}{{{bibtex_key(citation_key(source), taken)},\n{body}\n}}\n")
    return "\n".join(entries)
