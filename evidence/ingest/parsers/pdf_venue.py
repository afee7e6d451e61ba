"""Where and when a paper appeared, from page 1's text lines and the PDF's metadata: year, venue, DOI, arXiv id.

Pure functions over plain strings, so each rule is tested on the lines real papers print: an arXiv stamp
("arXiv:2302.07302v1 [cs.CL] 14 Feb 2023"), a venue line ("Proceedings of NAACL-HLT 2018, pages 84–91"), a journal
header ("Dhaka Univ. J. Pharm. Sci. 8(1): 7-10, 2009"), a copyright line ("© 2010 Datta et al.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

FIRST_YEAR = 1950
_YEAR = re.compile(r"(?<![\d/.:-])((?:19|20)\d\d)(?![\d/])")
_ARXIV = re.compile(r"arXiv:\s?(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?", re.I)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
# Lines that name where a paper appeared; a journal line wins over the word "conference" in its name
# ("Journal of Physics: Conference Series").
_JOURNAL = re.compile(
    r"\bjournal\b|\btransactions\b|\bletters\b|\bvolume \d|\bvol\. ?\d|\bJ\. [A-Z][a-z]+\.|\d+\(\d+\): ?\d+|"
    r"\b\d+:\d+[–-]\d+\b|\b(?:19|20)\d\d, \d+:\d+\b",
    re.I,
)
_PROCEEDINGS = re.compile(
    r"\bproceedings\b|\bconference\b|\bsymposium\b|\bworkshop\b|\bextended abstracts\b|\bannual meeting\b|"
    r"\bto appear in\b|\bpresented at\b",
    re.I,
)
_PUBLISHED = re.compile(r"^published\b", re.I)  # "Published 5 June 2017": a year, no venue name
_COPYRIGHT = re.compile(r"©|\bcopyright\b|\(c\)|^[cr] (?=(?:19|20)\d\d\b)", re.I)
# A sentence citing another paper ("Lample et al., 2016", "(Kim and Moldovan, 1993"): its year is not this paper's.
_CITATION = re.compile(r"et al\.?,? \(?(?:19|20)\d\d|[A-Za-z], (?:19|20)\d\d[;)]|\((?:19|20)\d\d\)\.", re.I)
# The venue's name: the line up to its pages, volume, date or year.
_VENUE_END = re.compile(
    r",? *(?:\d+ ?\((?:19|20)\d\d\)|pages? \d|pp\. ?\d|vol(?:ume)?\.? ?\d|\d+\(\d+\)|\d+:\d+|"
    r"(?:19|20)\d\d\b(?=\s*(?:[,.;)]|\d*$))|\(|doi\b|https?:|"
    r",? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d).*$",
    re.I,
)
_VENUE_START = re.compile(r"^.*?\bet al\.?;? *|^(?:to appear in|presented at) *", re.I)


@dataclass(frozen=True)
class Venue:
    """What page 1 and the metadata say about where and when the paper appeared."""

    year: int | None = None
    year_source: str = ""  # "venue", "copyright", "arxiv", "metadata"
    venue: str = ""
    venue_kind: str = ""  # "proceedings", "journal" or ""
    doi: str = ""
    arxiv: str = ""  # the arXiv identifier without its version: "2302.07302"


def plausible_year(text: str, today: date | None = None) -> int | None:
    """Return the last year between 1950 and this year printed in a text, else None."""
    last = (today or date.today()).year
    years = [int(y) for y in _YEAR.findall(text) if FIRST_YEAR <= int(y) <= last]
    return years[-1] if years else None


def _venue_name(line: str, previous: str) -> str:
    """Return the name of the venue a venue line prints, without authors, pages and dates; a line that starts
    with the volume ("Volume 2010, Article ID 157939") names it on the line above."""
    if re.match(r"vol(?:ume)?\.? ?\d", line, re.I) and len(previous) < 80 and not re.search(r"\d", previous):
        line = previous
    name = _VENUE_END.sub("", _VENUE_START.sub("", line)).strip(" ,.;:")
    if re.search(r"(?:\b[a-z]+\b[ ,/]+){4}", name) or not name[:1].isupper():  # prose, not a name
        return ""
    return name if len(name) >= 3 and re.search(r"[A-Za-z]{3}", name) else ""


def _metadata_year(metadata: dict[str, str], today: date | None) -> int | None:
    """Return the year of the Subject ("acl 2020") or, failing that, of the creation date ("D:20200519...")."""
    subject = plausible_year(metadata.get("Subject", ""), today)
    if subject:
        return subject
    created = re.match(r"(?:D:)?((?:19|20)\d\d)", metadata.get("CreationDate", "").strip())
    return plausible_year(created.group(1), today) if created else None


def read_venue(lines: list[str], metadata: dict[str, str], today: date | None = None) -> Venue:
    """Return the year, venue, DOI and arXiv id page 1's lines (in reading order) and the metadata give.

    The year comes from a venue line (or the line below it: "Proceedings of the 30th VLDB Conference," then
    "Toronto, Canada, 2004"), else a copyright line, else an arXiv stamp, else the metadata.
    """
    lines = [line.strip() for line in lines if line.strip()]
    arxiv = next((m for m in map(_ARXIV.search, lines) if m), None)
    doi = next((m.group(1) for m in map(_DOI.search, [*lines, metadata.get("Subject", "")]) if m), "")
    doi = doi.rstrip(".,;)")
    venue_year = copyright_year = None
    venue, kind = "", ""
    for i, line in enumerate(lines):
        if len(line) > 220 or _CITATION.search(line) or _ARXIV.search(line):
            continue
        is_journal, is_proceedings = bool(_JOURNAL.search(line)), bool(_PROCEEDINGS.search(line))
        if is_journal or is_proceedings:
            year = plausible_year(line, today)
            if year is None and i + 1 < len(lines) and len(lines[i + 1]) < 80:
                year = plausible_year(lines[i + 1], today)
            name = _venue_name(line, lines[i - 1] if i else "")
            if not venue and name:
                venue, kind = name, "journal" if is_journal else "proceedings"
            venue_year = venue_year or year
        if _PUBLISHED.search(line):
            venue_year = venue_year or plausible_year(line, today)
        if _COPYRIGHT.search(line):
            copyright_year = copyright_year or plausible_year(line, today)
    arxiv_year = plausible_year(arxiv.string[arxiv.end() :], today) if arxiv else None
    metadata_year = _metadata_year(metadata, today)
    year, source = next(
        ((y, s) for y, s in ((venue_year, "venue"), (copyright_year, "copyright"), (arxiv_year, "arxiv"),
                             (metadata_year, "metadata")) if y),
        (None, ""),
    )  # fmt: skip
    return Venue(year, source, venue, kind, doi, arxiv.group(1) if arxiv else "")
