"""A library in an upload: read it before its files are queued, give each document its entry's metadata as the
document is stored, and report the entries no document took (listed, never silently dropped).

The library's rows carry what was read (`IngestFile.library`): its entries, which uploaded file each entry's
attachment is, and nothing else is kept elsewhere, so a worker ingesting a file of the same upload finds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from ..models import Document, IngestFile, IngestFileData, IngestJob
from .library import (
    LibraryEntry,
    Match,
    entry_metadata,
    files_in_upload,
    match_document,
    might_be_library,
    read_library,
    snapshot_files,
)
from .store import text_sha256
from .types import IngestError, ParsedDocument


def read_libraries(records: Sequence[IngestFile]) -> None:
    """Read the library files (BibTeX, CSL-JSON) among an upload's queued files; mark them done, and skip the web
    snapshots stored beside an entry's PDF. Called before the files are queued, so every worker finds them."""
    queued = [r for r in records if r.status == IngestFile.Status.QUEUED]
    for record in queued:
        if not might_be_library(record.name):
            continue
        data = IngestFileData.objects.filter(file=record).values_list("data", flat=True).first()
        if data is None:
            continue
        try:
            library = read_library(record.name, bytes(data))
        except IngestError as error:
            record.status, record.error, record.retryable = IngestFile.Status.FAILED, str(error), False
            record.save(update_fields=["status", "error", "retryable", "updated_at"])
            continue
        if library is None:
            continue  # a .json that is not CSL-JSON: a document like any other
        others = [r.name for r in queued if r.pk != record.pk]
        tied = files_in_upload(library.entries, others)
        snapshots = snapshot_files(library.entries, tied)
        record.library = {
            "entries": [entry.as_json() for entry in library.entries],
            "tied": {name: key for name, key in tied.items() if name not in snapshots},
            "unreadable": list(library.unreadable),
        }
        record.status, record.error = IngestFile.Status.DONE, ""
        record.save(update_fields=["library", "status", "error", "updated_at"])
        titles = {entry.key: entry.title for entry in library.entries}
        for other in queued:
            if other.name in snapshots:
                other.status = IngestFile.Status.DONE
                other.library = {"skipped": f"another copy of “{titles.get(tied[other.name], '')}” beside its PDF"}
                other.save(update_fields=["status", "library", "updated_at"])
        _tie_stored_documents(record, library.entries, set(tied.values()))


def _tie_stored_documents(record: IngestFile, entries: Sequence[LibraryEntry], reserved: set[str]) -> None:
    """Give documents already in the collection (uploaded before their library) their entry's metadata: matched
    by file path, DOI or exact title, for entries whose attachment is not part of this upload."""
    open_entries = tuple(e for e in entries if e.key not in reserved)
    if not open_entries:
        return
    job = IngestJob.objects.only("collection_id").get(pk=record.job_id)
    stored = list(
        Document.objects.filter(collection_id=job.collection_id).values_list(
            "pk", "source_name", "title", "metadata__doi"
        )
    )
    tied = files_in_upload(open_entries, [name for _, name, _, _ in stored])
    by_doi = {e.doi.casefold(): e for e in open_entries if e.doi}
    by_title = {_plain(e.title): e for e in open_entries if e.title}
    by_key = {e.key: e for e in open_entries}
    for pk, source_name, title, doi in stored:
        if source_name in tied:
            match = Match(by_key[tied[source_name]], "file path")
        elif isinstance(doi, str) and doi.casefold() in by_doi:
            match = Match(by_doi[doi.casefold()], "DOI")
        elif _plain(title) in by_title:
            match = Match(by_title[_plain(title)], "title")
        else:
            continue
        document = Document.objects.get(pk=pk)
        document.title, document.metadata = _apply(document.title, document.metadata, match, record)
        document.save(update_fields=["title", "metadata"])


def _plain(title: str) -> str:
    return " ".join("".join(c for c in title.casefold() if c.isalnum() or c.isspace()).split())


def apply_libraries(record: IngestFile, documents: list[ParsedDocument]) -> None:
    """Give a file's document the metadata of its library entry (a file parsed into many documents, such as a
    JSON-lines corpus, is no library attachment)."""
    if len(documents) != 1:
        return
    libraries = IngestFile.objects.filter(job_id=record.job_id, library__has_key="entries").order_by("pk")
    document = documents[0]
    for library in libraries:
        entries = tuple(LibraryEntry.from_json(e) for e in library.library["entries"])
        tied = library.library.get("tied") or {}
        if record.name in tied:
            match = match_document(entries, record.name, "", "", tied_key=tied[record.name])
        else:
            reserved = set(tied.values())
            open_entries = tuple(e for e in entries if e.key not in reserved)
            match = match_document(open_entries, record.name, document.title, document.text)
        if match is not None:
            document.title, document.metadata = _apply(document.title, document.metadata, match, library)
            return


def _apply(title: str, metadata: dict[str, Any], match: Match, library: IngestFile) -> tuple[str, dict[str, Any]]:
    """The title and metadata a document takes from its entry; the guessed title is kept beside them."""
    updated = {**(metadata or {}), **entry_metadata(match.entry, library.name, match.how, library.job_id)}
    if match.entry.title and match.entry.title != title:
        updated["layout_title"] = title
    return match.entry.title or title, updated


def tie_duplicate(collection_id: int, documents: list[ParsedDocument]) -> None:
    """A file whose text is already stored (its PDF uploaded before the library) gives the stored document its
    library entry's title and metadata."""
    if len(documents) != 1 or "library" not in documents[0].metadata:
        return
    parsed = documents[0]
    stored = Document.objects.filter(collection_id=collection_id, sha256=text_sha256(parsed.text)).first()
    if stored is not None:
        stored.title, stored.metadata = parsed.title, {**(stored.metadata or {}), **parsed.metadata}
        stored.save(update_fields=["title", "metadata"])


def library_report(job: IngestJob) -> list[dict[str, Any]]:
    """Per library file of an upload: its entries, how many documents took one, and each entry no document took,
    with the reason in a plain sentence."""
    reports = []
    finished = job.status in IngestJob.FINISHED
    # The upload's files once (the page asks every second): the first row of each name, as the worker took it.
    files: dict[str, IngestFile] = {}
    for row in job.files.order_by("pk").only("pk", "name", "status", "duplicates"):
        files.setdefault(row.name, row)
    for library in job.files.filter(library__has_key="entries").order_by("pk"):
        entries = [LibraryEntry.from_json(e) for e in library.library["entries"]]
        taken = set(
            Document.objects.filter(
                collection_id=job.collection_id, metadata__library__job=job.pk, metadata__library__file=library.name
            ).values_list("metadata__library__key", flat=True)
        )
        tied_files: dict[str, list[str]] = {}
        for name, key in (library.library.get("tied") or {}).items():
            tied_files.setdefault(key, []).append(name)
        missing = [
            {"key": e.key, "title": e.title, "reason": _why_missing(e, tied_files.get(e.key, []), files, finished)}
            for e in entries
            if e.key not in taken
        ]
        reports.append(
            {
                "file": library.name,
                "entries": len(entries),
                "matched": len(entries) - len(missing),
                "without_document": missing,
                "unreadable": list(library.library.get("unreadable") or []),
            }
        )
    return reports


def file_note(record: IngestFile) -> str:
    """What an upload's file was, when it was not a paper: a library read, or a snapshot skipped."""
    library = record.library or {}
    if "skipped" in library:
        return f"Skipped: {library['skipped']}."
    if "entries" in library:
        count = len(library["entries"])
        entries = f"{count} entr{'y' if count == 1 else 'ies'}"
        return f"A reference library of {entries}: they give the papers their titles, authors, years, venues and DOIs."
    return ""


def _why_missing(entry: LibraryEntry, uploaded: list[str], files: dict[str, IngestFile], finished: bool) -> str:
    if uploaded:
        file = min((files[name] for name in uploaded if name in files), key=lambda f: f.pk, default=None)
        if file is not None and file.status == IngestFile.Status.FAILED:
            return "its file could not be read (see the file's error below)"
        if file is not None and file.duplicates:
            return "its file was already in the collection, under the metadata it had then"
        return "its file is still being read" if not finished else "its file gave no document"
    if not entry.files:
        return "it has no attached file: upload its PDF with the library, or on its own"
    names = ", ".join(PurePosixPath(path).name for path in entry.files[:2])
    return f"its file ({names}) was not in the upload: add it to the upload and send the library again"
