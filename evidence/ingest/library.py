"""Reference libraries (a BibTeX or CSL-JSON file with its attached PDFs): read the entries, tie each uploaded
file to its entry, and give the document the library's title, authors, year, venue and DOI.

Pure functions: names and bytes in, plain values out (library_import.py stores them on an upload). A file is tied
to an entry by the path in the entry's `file` field (Zotero's "Export Files" layout, JabRef's and a plain
`file = {papers/x.pdf}`); an entry without a file present in the upload may still be found by its citation key as
the file's name, by its DOI in the paper's first page, or by its title.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import PurePosixPath
from typing import Any

from .parsers.common import decode_utf8
from .types import IngestError

BIBTEX_EXTENSIONS = (".bib", ".bibtex")
CSL_EXTENSIONS = (".json", ".csljson")
# Only so much of a paper is searched for an entry's DOI: its own DOI is printed on the first page, while its
# reference list holds the DOIs of other papers.
DOI_HEAD_CHARS = 6000
TITLE_SIMILARITY = 0.9


@dataclass(frozen=True)
class LibraryEntry:
    """One reference of a library, with the facts a citation needs."""

    key: str
    title: str
    authors: tuple[str, ...] = ()  # "Given Family", in the library's order
    year: int | None = None
    venue: str = ""
    doi: str = ""
    url: str = ""
    files: tuple[str, ...] = ()  # attachment paths, resolved against the library file's folder
    line: int | None = None  # 1-based line of a BibTeX entry

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LibraryEntry:
        return cls(
            key=str(data.get("key", "")),
            title=str(data.get("title", "")),
            authors=tuple(str(a) for a in data.get("authors") or ()),
            year=data.get("year") if isinstance(data.get("year"), int) else None,
            venue=str(data.get("venue", "")),
            doi=str(data.get("doi", "")),
            url=str(data.get("url", "")),
            files=tuple(str(f) for f in data.get("files") or ()),
            line=data.get("line") if isinstance(data.get("line"), int) else None,
        )


@dataclass(frozen=True)
class Library:
    """A library file read: its entries, and a sentence for each entry that could not be read."""

    name: str
    entries: tuple[LibraryEntry, ...]
    unreadable: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Match:
    entry: LibraryEntry
    how: str  # "file path", "citation key", "DOI" or "title"


# ------------------------------------------------------------------ recognising and reading a library


def might_be_library(name: str) -> bool:
    """Tell from its name whether a file may be a library (a .json must still be CSL-JSON; see read_library)."""
    lowered = name.lower()
    return lowered.endswith(BIBTEX_EXTENSIONS + CSL_EXTENSIONS)


def read_library(name: str, data: bytes) -> Library | None:
    """Read a BibTeX or CSL-JSON library; None for a .json that is not CSL-JSON (a document to parse instead).

    A library with no readable entry raises IngestError with a sentence that says what to do.
    """
    lowered = name.lower()
    if lowered.endswith(BIBTEX_EXTENSIONS):
        library = read_bibtex(name, decode_utf8(name, data))
    elif lowered.endswith(CSL_EXTENSIONS):
        items = _csl_items(data)
        if items is None:
            return None
        library = read_csl_json(name, items)
    else:
        return None
    if not library.entries:
        detail = f" ({library.unreadable[0]})" if library.unreadable else ""
        raise IngestError(name, f"holds no library entry that could be read{detail}: export the library again")
    return library


def _csl_items(data: bytes) -> list[dict[str, Any]] | None:
    """The items of a CSL-JSON file (a list of objects each with an id and a type), or None."""
    try:
        payload = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(payload, dict) and isinstance(payload.get("items"), list):
        payload = payload["items"]
    if not isinstance(payload, list) or not payload:
        return None
    if not all(isinstance(item, dict) and "id" in item and "type" in item for item in payload):
        return None
    return payload


def read_bibtex(name: str, text: str) -> Library:
    """Read the entries of a BibTeX file (LaTeX accents decoded, names split), noting the ones that fail to parse."""
    import bibtexparser
    from bibtexparser import middlewares

    parsed = bibtexparser.parse_string(
        text,
        append_middleware=[
            middlewares.LatexDecodingMiddleware(),
            middlewares.SeparateCoAuthors(),
            middlewares.SplitNameParts(),
        ],
    )
    folder = _folder(name)
    entries = []
    for entry in parsed.entries:
        fields = {key.lower(): value.value for key, value in entry.fields_dict.items()}
        entries.append(
            LibraryEntry(
                key=entry.key,
                title=_squash(str(fields.get("title", ""))),
                authors=tuple(_bibtex_name(n) for n in fields.get("author") or () if _bibtex_name(n)),
                year=_year(str(fields.get("year") or fields.get("date") or "")),
                venue=_squash(
                    str(fields.get("journal") or fields.get("booktitle") or fields.get("journaltitle") or "")
                ),
                doi=clean_doi(str(fields.get("doi", ""))),
                url=str(fields.get("url", "")).strip(),
                files=tuple(_resolve(folder, p) for p in attachment_paths(str(fields.get("file", "")))),
                line=entry.start_line + 1,
            )
        )
    unreadable = tuple(
        f"the entry starting on line {block.start_line + 1} is not valid BibTeX" for block in parsed.failed_blocks
    )
    return Library(name=name, entries=tuple(entries), unreadable=unreadable)


def _bibtex_name(name: Any) -> str:
    """A name split by bibtexparser as "Given von Family, Jr"; a plain string as it is."""
    if isinstance(name, str):
        return _squash(name)
    parts = [*name.first, *name.von, *name.last]
    text = " ".join(_squash(p) for p in parts if p)
    return f"{text}, {' '.join(name.jr)}" if name.jr else text


def read_csl_json(name: str, items: list[dict[str, Any]]) -> Library:
    """Read the items of a CSL-JSON export (Zotero's, Mendeley's, or this app's own)."""
    folder = _folder(name)
    entries = []
    for item in items:
        authors = tuple(a for a in (_csl_name(n) for n in item.get("author") or [] if isinstance(n, dict)) if a)
        files = item.get("file") or item.get("attachments") or ()
        files = [files] if isinstance(files, str) else [f.get("path", "") if isinstance(f, dict) else f for f in files]
        entries.append(
            LibraryEntry(
                key=str(item.get("id", "")),
                title=_squash(str(item.get("title", ""))),
                authors=authors,
                year=_csl_year(item.get("issued")),
                venue=_squash(str(item.get("container-title") or item.get("event-title") or "")),
                doi=clean_doi(str(item.get("DOI") or item.get("doi") or "")),
                url=str(item.get("URL") or "").strip(),
                files=tuple(_resolve(folder, str(p)) for p in files if str(p).strip()),
            )
        )
    return Library(name=name, entries=tuple(entries))


def _csl_name(name: dict[str, Any]) -> str:
    if name.get("literal"):
        return _squash(str(name["literal"]))
    return _squash(" ".join(str(name.get(part, "")) for part in ("given", "non-dropping-particle", "family")))


def _csl_year(issued: Any) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return _year(str(parts[0][0]))
        return _year(str(issued.get("raw") or issued.get("literal") or ""))
    return None


def _year(text: str) -> int | None:
    found = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", text)
    return int(found.group(1)) if found else None


def clean_doi(text: str) -> str:
    """A DOI as "10.x/y", without a resolver prefix ("https://doi.org/", "doi:")."""
    text = text.strip()
    text = re.sub(r"^(https?://(dx\.)?doi\.org/|doi:\s*)", "", text, flags=re.I)
    return text if text.startswith("10.") else ""


def _squash(text: str) -> str:
    """Braces BibTeX keeps for capitalisation removed, whitespace squashed."""
    return " ".join(text.replace("{", "").replace("}", "").split())


# ------------------------------------------------------------------ attachments


_UNESCAPED = re.compile(r"(?<!\\)[;]")


def attachment_paths(field_value: str) -> list[str]:
    """The file paths of a BibTeX `file` field: Zotero's and JabRef's "description:path:type" list, separated by
    semicolons (escaped colons of Windows drives kept), or a bare path."""
    paths = []
    for part in _UNESCAPED.split(field_value):
        part = part.strip()
        if not part:
            continue
        pieces = re.split(r"(?<!\\):", part)
        if len(pieces) >= 3:
            path = ":".join(pieces[1:-1])
        elif len(pieces) == 2 and len(pieces[0]) == 1:  # "C:/papers/x.pdf", a bare Windows path
            path = part
        else:
            path = pieces[-1] if len(pieces) == 2 and "." in pieces[-1] else part
        path = path.replace("\\:", ":").replace("\\\\", "\\").strip()
        if path:
            paths.append(path)
    return paths


def _folder(library_name: str) -> str:
    parent = str(PurePosixPath(library_name.replace("\\", "/")).parent)
    return "" if parent == "." else parent


def _resolve(folder: str, path: str) -> str:
    path = path.replace("\\", "/")
    if path.startswith("/") or re.match(r"^[A-Za-z]:/", path) or not folder:
        return path
    return f"{folder}/{path}"


def _parts(path: str) -> list[str]:
    return [
        unicodedata.normalize("NFC", p).casefold() for p in path.replace("\\", "/").split("/") if p not in {"", "."}
    ]


def _shared_tail(a: list[str], b: list[str]) -> int:
    count = 0
    while count < min(len(a), len(b)) and a[-1 - count] == b[-1 - count]:
        count += 1
    return count


def files_in_upload(entries: tuple[LibraryEntry, ...], names: list[str]) -> dict[str, str]:
    """Tie uploaded file names to entries by attachment path: {file name: entry key}.

    A name is tied to the entry whose attachment path shares the longest tail of folders with it (the browser
    sends bare file names, a zip or the command line whole paths); a tie between two entries ties neither.
    """
    # Only attachments with the file's own name can share a tail with it: look those up, not every entry (a
    # library sent after its papers is matched against every stored document's name).
    by_file_name: dict[str, list[tuple[str, list[str]]]] = {}
    for entry in entries:
        for path in entry.files:
            parts = _parts(path)
            if parts:
                by_file_name.setdefault(parts[-1], []).append((entry.key, parts))
    tied: dict[str, str] = {}
    for name in names:
        name_parts = _parts(name)
        best, best_keys = 0, set()
        for key, parts in by_file_name.get(name_parts[-1] if name_parts else "", []):
            shared = _shared_tail(name_parts, parts)
            if shared > best:
                best, best_keys = shared, {key}
            elif shared == best:
                best_keys.add(key)
        if best and len(best_keys) == 1:
            tied[name] = best_keys.pop()
    return tied


def snapshot_files(entries: tuple[LibraryEntry, ...], tied: dict[str, str]) -> set[str]:
    """Uploaded files that are another copy of an entry whose PDF is also uploaded (a web page snapshot):
    reading them too would put each paper in the collection twice."""
    by_entry: dict[str, list[str]] = {}
    for name, key in tied.items():
        by_entry.setdefault(key, []).append(name)
    extra: set[str] = set()
    for names in by_entry.values():
        if any(n.lower().endswith(".pdf") for n in names):
            extra.update(n for n in names if not n.lower().endswith(".pdf"))
    return extra


# ------------------------------------------------------------------ matching a document to an entry


def match_document(
    entries: tuple[LibraryEntry, ...], file_name: str, title: str, text: str, tied_key: str | None = None
) -> Match | None:
    """The entry a parsed document belongs to: its file's tie by path, else (among entries whose attachments
    were not uploaded) its citation key as the file's name, its DOI on the first page, or its title."""
    by_key = {entry.key: entry for entry in entries}
    if tied_key and tied_key in by_key:
        return Match(by_key[tied_key], "file path")
    stem = PurePosixPath(file_name.replace("\\", "/")).stem.casefold()
    for entry in entries:
        if entry.key and entry.key.casefold() == stem:
            return Match(entry, "citation key")
    head = text[:DOI_HEAD_CHARS].casefold()
    with_doi = [entry for entry in entries if entry.doi and entry.doi.casefold() in head]
    if len(with_doi) == 1:
        return Match(with_doi[0], "DOI")
    wanted = _title_words(title)
    if wanted:
        scored = [(SequenceMatcher(None, wanted, _title_words(e.title)).ratio(), e) for e in entries if e.title]
        scored = [(score, entry) for score, entry in scored if score >= TITLE_SIMILARITY]
        if len(scored) == 1:
            return Match(scored[0][1], "title")
    return None


def _title_words(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).casefold()
    return " ".join(re.findall(r"[^\W_]+", text))


def entry_metadata(entry: LibraryEntry, library_name: str, how: str, job_id: int | None) -> dict[str, Any]:
    """The metadata a document takes from its entry (it wins over what was guessed from the layout)."""
    metadata: dict[str, Any] = {"title_source": "library"}
    if entry.authors:
        metadata.update(authors=list(entry.authors), authors_source="library")
    if entry.year:
        metadata.update(year=entry.year, year_source="library")
    if entry.venue:
        metadata["venue"] = entry.venue
    if entry.doi:
        metadata["doi"] = entry.doi
    if entry.url:
        metadata["url"] = entry.url
    metadata["library"] = {"file": library_name, "key": entry.key, "matched_by": how, "job": job_id}
    return metadata
