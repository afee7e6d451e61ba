"""Write parsed documents to Postgres: each document with its passages, regions and vectors, or nothing."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np
from django.db import IntegrityError, connection, transaction

from ..models import Collection, Document, Passage, Region, SourceFile
from .chunking import make_passages
from .types import ParsedDocument

# Formats that hold one paper per file: the same paper uploaded as PDF and as S2ORC/JATS is one document.
PAPER_FORMATS = {"pdf", "s2orc", "jats", "html", "markdown", "text"}

# Documents are embedded and written in groups: big enough to batch the model well, small enough that
# progress moves and a failure loses little work.
GROUP_SIZE = 64


@dataclass
class StoreResult:
    documents: list[int] = field(default_factory=list)  # ids of the documents written
    duplicates: list[str] = field(default_factory=list)  # titles/docids skipped as duplicates
    passages: int = 0


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def title_key(title: str) -> str:
    """Return a normalised title for cross-format duplicate detection ('' when too short to trust)."""
    key = re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()
    return key if len(key) >= 24 else ""


def docid_from_name(source_name: str) -> str:
    """Derive a readable docid from a file name: its stem, reduced to safe characters."""
    stem = PurePosixPath(source_name.replace("\\", "/")).name
    stem = re.sub(r"\.(pdf|txt|text|md|markdown|html?|xhtml|n?xml|json|jsonl)$", "", stem, flags=re.I)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.")[:120] or "document"


def unique_docid(collection: Collection, wanted: str, taken: set[str]) -> str:
    candidate, suffix = wanted, 2
    while candidate in taken or Document.objects.filter(collection=collection, docid=candidate).exists():
        candidate = f"{wanted}-{suffix}"
        suffix += 1
    taken.add(candidate)
    return candidate


def passage_index_text(title: str, body: str) -> str:
    """Return the text a passage is indexed and embedded as: title plus body (SPEC 3)."""
    return f"{title}\n{body}" if title else body


Embed = Callable[[Sequence[str]], np.ndarray]


def store_documents(
    collection: Collection,
    source_name: str,
    parsed: Sequence[ParsedDocument],
    embed: Embed | None,
    on_progress: Callable[[int, int], None] | None = None,
) -> StoreResult:
    """Write documents group by group; a document is committed whole (text, passages, regions, vectors) or not at all.

    `embed` None skips vectors (they can be added later); `on_progress(documents, passages)` reports each group.
    """
    result = StoreResult()
    known = set(
        Document.objects.filter(collection=collection, sha256__in=[text_sha256(d.text) for d in parsed]).values_list(
            "sha256", flat=True
        )
    )
    titles = {
        title_key(title): docid
        for title, docid in Document.objects.filter(collection=collection, source_format__in=PAPER_FORMATS).values_list(
            "title", "docid"
        )
    }
    fresh: list[ParsedDocument] = []
    for doc in parsed:
        digest = text_sha256(doc.text)
        key = title_key(doc.title) if doc.source_format in PAPER_FORMATS else ""
        if digest in known:
            result.duplicates.append(f"{doc.docid or doc.title or source_name} (same text as a stored document)")
            continue
        if key and key in titles:
            result.duplicates.append(f"{doc.title[:80]} (same title as docid {titles[key]})")
            continue
        known.add(digest)
        if key:
            titles[key] = doc.docid or source_name
        fresh.append(doc)

    taken: set[str] = set()
    for offset in range(0, len(fresh), GROUP_SIZE):
        group = fresh[offset : offset + GROUP_SIZE]
        rows = [_plan_rows(collection, source_name, doc, taken) for doc in group]
        if embed is not None:
            _embed_rows(rows, embed)
        for row in rows:
            if not _write_unique(collection, row, taken):
                result.duplicates.append(f"{row.document.docid} (same text as a stored document)")
                continue
            result.documents.append(row.document.pk)
            result.passages += len(row.passages)
        if on_progress is not None:
            on_progress(len(group), sum(len(row.passages) for row in rows))
    return result


# A docid lost to a concurrent worker is re-picked; this many losses in a row means something else is wrong.
DOCID_TRIES = 20


def _write_unique(collection: Collection, row: _Rows, taken: set[str]) -> bool:
    """Write one document, taking the next free docid when a concurrent worker took this one; False for a duplicate.

    Two workers can plan the same docid (two files with one stem, in one upload). The unique constraints judge:
    only a stored row with the same sha256 makes this a duplicate; a clash on the docid alone is re-planned.
    """
    for _ in range(DOCID_TRIES):
        try:
            with transaction.atomic():
                row.write()
            return True
        except IntegrityError:
            row.unsave()
            if Document.objects.filter(collection=collection, sha256=row.document.sha256).exists():
                return False
            if not Document.objects.filter(collection=collection, docid=row.document.docid).exists():
                raise
            row.document.docid = unique_docid(collection, row.wanted_docid, taken)
    raise IntegrityError(f"no free docid for {row.wanted_docid!r} after {DOCID_TRIES} tries")


@dataclass
class _Rows:
    document: Document
    passages: list[Passage]
    regions: list[Region]
    passage_texts: list[str]
    sentence_texts: list[str]
    wanted_docid: str = ""
    source: SourceFile | None = None  # a PDF's bytes and offset map, written with the document

    def write(self) -> None:
        self.document.save()
        for item in (*self.passages, *self.regions):
            item.document = self.document
        Passage.objects.bulk_create(self.passages)
        copy_regions(self.regions)
        if self.source is not None:
            self.source.document = self.document
            self.source.save(force_insert=True)

    def unsave(self) -> None:
        """Forget ids from a rolled-back write, so the next try inserts afresh."""
        for item in (self.document, *self.passages):
            item.pk = None
            item._state.adding = True


REGION_COLUMNS = ("document_id", "kind", "ordinal", "start", "end", "label", "page")


def copy_regions(regions: Sequence[Region]) -> None:
    """Insert regions (without vectors, which are made on first use) with one COPY.

    A paper has hundreds of sentence regions; building one INSERT of them took most of a file's store time.
    The rows get no ids back: nothing reads a region's id before it is queried again.
    """
    columns = ", ".join(f'"{name}"' for name in REGION_COLUMNS)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY evidence_region ({columns}) FROM STDIN") as copy:
        for region in regions:
            copy.write_row([getattr(region, name) for name in REGION_COLUMNS])


def _plan_rows(collection: Collection, source_name: str, doc: ParsedDocument, taken: set[str]) -> _Rows:
    wanted = doc.docid or docid_from_name(source_name)
    docid = unique_docid(collection, wanted, taken)
    title = doc.title.strip() or docid
    document = Document(
        collection=collection,
        docid=docid,
        title=title,
        source_name=source_name[:500],
        source_format=doc.source_format,
        sha256=text_sha256(doc.text),
        text=doc.text,
        pages=[[page.number, page.start, page.end] for page in doc.pages],
        metadata=doc.metadata,
    )
    spans = make_passages(doc)
    passages = [Passage(ordinal=span.ordinal, start=span.start, end=span.end) for span in spans]
    passage_texts = [passage_index_text(title, doc.text[span.start : span.end]) for span in spans]
    regions: list[Region] = []
    ordinals: dict[str, int] = {}
    for region in doc.regions:
        ordinal = ordinals.get(region.kind, 0)
        ordinals[region.kind] = ordinal + 1
        regions.append(
            Region(
                kind=region.kind,
                ordinal=ordinal,
                start=region.start,
                end=region.end,
                label=region.label[:2000],
                page=region.page,
            )
        )
    sentence_texts = [doc.text[r.start : r.end] for r in regions if r.kind == Region.Kind.SENTENCE]
    source = None
    if doc.source_bytes is not None:
        source = SourceFile(
            data=doc.source_bytes, sha256=hashlib.sha256(doc.source_bytes).hexdigest(), char_map=doc.char_map or {}
        )
    return _Rows(document, passages, regions, passage_texts, sentence_texts, wanted, source)


def _embed_rows(rows: list[_Rows], embed: Embed) -> None:
    # Passages only: sentence vectors are 45-57% of a paper's embedding time and only System 1 reads them, so they
    # are made when it first asks (fill_region_vectors) and a collection is searchable as soon as its passages are.
    texts = [text for row in rows for text in row.passage_texts]
    if not texts:
        return
    vectors = embed(texts)
    cursor = 0
    for row in rows:
        for passage in row.passages:
            passage.embedding = vectors[cursor]
            cursor += 1


def fill_region_vectors(
    regions: Sequence[Region], documents: Mapping[int, Document], embed: Embed | None = None
) -> int:
    """Embed the regions that have no vector yet, store the vectors and set them on the objects; return how many.

    `documents` maps each region's document_id to its Document (for the text). Two processes filling one row at
    once write the same vector.
    """
    missing = [region for region in regions if region.embedding is None]
    if not missing:
        return 0
    if embed is None:
        from ..encode import get_embedder

        embed = get_embedder().embed
    texts = [documents[r.document_id].text[r.start : r.end] for r in missing]
    vectors = np.asarray(embed(texts), dtype=np.float32)
    for region, vector in zip(missing, vectors, strict=True):
        region.embedding = vector
    Region.objects.bulk_update(missing, ["embedding"], batch_size=500)
    return len(missing)
