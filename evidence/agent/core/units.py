"""Load judge units from the database: a passage of a document with its sentence blocks and stored vectors.

A question reads only what it judges: the hit passages and the regions inside them (one query each, however many
hits), never a hit document's other passages and sentences. Vectors travel in pgvector's binary format
(``vector_send``: int16 dimensions, int16 unused, big-endian float32s) and become numpy arrays without parsing text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import connection

from ...ingest import fill_region_vectors
from ...judge import Block, Unit
from ...models import Document, Passage, Region
from ...retrieval import Hit
from . import progress

_DOCUMENT_FIELDS = ("id", "docid", "title", "text", "pages")


def decode_vector(data: bytes | memoryview | None) -> np.ndarray | None:
    """Return a vector_send() value as a float32 array (None stays None)."""
    if data is None:
        return None
    return np.frombuffer(data, dtype=">f4", offset=4).astype(np.float32)


@dataclass
class _Region:
    """A region row as a question reads it (model instances only for the few that still need a vector)."""

    pk: int
    document_id: int
    kind: str
    ordinal: int
    start: int
    end: int
    label: str
    page: int | None
    embedding: np.ndarray | None


@dataclass
class _Passage:
    document_id: int
    ordinal: int
    start: int
    end: int
    embedding: np.ndarray | None


_REGION_COLUMNS = 'r.id, r.document_id, r.kind, r.ordinal, r.start, r."end", r.label, r.page, vector_send(r.embedding)'


def _region_rows(rows: Iterable[tuple]) -> list[tuple[int, _Region]]:
    return [(window, _Region(*values[:8], decode_vector(values[8]))) for window, *values in rows]


def regions_in_windows(kind: str, windows: Sequence[tuple[int, int, int]]) -> list[list[_Region]]:
    """Return, per (document pk, start, end) window, the regions of one kind overlapping it, in ordinal order.

    One query for all windows; a region two windows share is one object in both lists.
    """
    if not windows:
        return []
    table = Region._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT w.i, {_REGION_COLUMNS}
            FROM unnest(%s::bigint[], %s::int[], %s::int[]) WITH ORDINALITY AS w(doc, s, e, i)
            JOIN {table} r ON r.document_id = w.doc AND r.start < w.e AND r."end" > w.s
            WHERE r.kind = %s
            ORDER BY w.i, r.ordinal
            """,
            [[w[0] for w in windows], [w[1] for w in windows], [w[2] for w in windows], kind],
        )
        rows = _region_rows(cursor.fetchall())
    shared: dict[int, _Region] = {}
    out: list[list[_Region]] = [[] for _ in windows]
    for window, region in rows:
        out[window - 1].append(shared.setdefault(region.pk, region))
    return out


def regions_of_documents(kind: str, document_ids: Sequence[int]) -> dict[int, list[_Region]]:
    """Return every region of one kind of each document, in ordinal order (one query)."""
    out: dict[int, list[_Region]] = {pk: [] for pk in document_ids}
    if not document_ids:
        return out
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT 0, {_REGION_COLUMNS} FROM {Region._meta.db_table} r
            WHERE r.document_id = ANY(%s::bigint[]) AND r.kind = %s ORDER BY r.document_id, r.ordinal
            """,
            [list(document_ids), kind],
        )
        for _, region in _region_rows(cursor.fetchall()):
            out[region.document_id].append(region)
    return out


def _passages(query: str, params: list) -> list[_Passage]:
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return [_Passage(d, o, s, e, decode_vector(v)) for d, o, s, e, v in cursor.fetchall()]


def passages_at(keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], _Passage]:
    """Return the passages at (document pk, ordinal) keys, with their vectors."""
    if not keys:
        return {}
    rows = _passages(
        f"""
        SELECT p.document_id, p.ordinal, p.start, p."end", vector_send(p.embedding)
        FROM unnest(%s::bigint[], %s::int[]) AS w(doc, ord)
        JOIN {Passage._meta.db_table} p ON p.document_id = w.doc AND p.ordinal = w.ord
        """,
        [[k[0] for k in keys], [k[1] for k in keys]],
    )
    return {(p.document_id, p.ordinal): p for p in rows}


def first_passages(document_ids: Sequence[int]) -> dict[int, _Passage]:
    """Return each document's first passage (lowest ordinal)."""
    if not document_ids:
        return {}
    rows = _passages(
        f"""
        SELECT DISTINCT ON (p.document_id) p.document_id, p.ordinal, p.start, p."end", vector_send(p.embedding)
        FROM {Passage._meta.db_table} p WHERE p.document_id = ANY(%s::bigint[]) ORDER BY p.document_id, p.ordinal
        """,
        [list(document_ids)],
    )
    return {p.document_id: p for p in rows}


def passages_containing(points: Sequence[tuple[int, int]]) -> dict[tuple[int, int], _Passage]:
    """Return, per (document pk, offset), the first passage (by ordinal) with start <= offset < end."""
    if not points:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT DISTINCT ON (w.doc, w.at) w.doc, w.at, p.document_id, p.ordinal, p.start, p."end",
                   vector_send(p.embedding)
            FROM unnest(%s::bigint[], %s::int[]) AS w(doc, at)
            JOIN {Passage._meta.db_table} p ON p.document_id = w.doc AND p.start <= w.at AND p."end" > w.at
            ORDER BY w.doc, w.at, p.ordinal
            """,
            [[p[0] for p in points], [p[1] for p in points]],
        )
        return {(doc, at): _Passage(d, o, s, e, decode_vector(v)) for doc, at, d, o, s, e, v in cursor.fetchall()}


EMBED_BATCH = 128  # regions embedded per call, so a long first read reports progress as it goes


def fill_vectors(regions: Sequence[_Region], documents: dict[int, Document]) -> None:
    """Embed and store the vectors these regions lack (System 1 makes sentence vectors when it first reads them),
    reporting progress as it goes (a paper's first read can take seconds)."""
    missing = {region.pk: region for region in regions if region.embedding is None}
    if not missing:
        return
    rows = [
        Region(pk=r.pk, document_id=r.document_id, kind=r.kind, ordinal=r.ordinal, start=r.start, end=r.end)
        for r in missing.values()
    ]
    with progress.step(preparing_words(rows, documents), total=len(rows)) as advance:
        for at in range(0, len(rows), EMBED_BATCH):
            fill_region_vectors(rows[at : at + EMBED_BATCH], documents)
            advance(min(at + EMBED_BATCH, len(rows)))
    for row in rows:
        missing[row.pk].embedding = np.asarray(row.embedding, dtype=np.float32)


def preparing_words(rows: Sequence[Region], documents: dict[int, Document]) -> str:
    """What embedding these regions is, in words: "Preparing the sentences of “CiteSee” and 2 more papers"."""
    papers = list(dict.fromkeys(row.document_id for row in rows))
    kind = "sentences" if rows[0].kind == "sentence" else f"{rows[0].kind}s"
    title = " ".join((documents[papers[0]].title or documents[papers[0]].docid).split())
    title = title if len(title) <= 60 else title[:59].rstrip() + "…"
    more = f" and {len(papers) - 1} more paper{'s' if len(papers) > 2 else ''}" if len(papers) > 1 else ""
    return f"Preparing the {kind} of “{title}”{more} for reading"


def _documents(collection_id: int, docids: Iterable[str]) -> dict[str, Document]:
    query = Document.objects.filter(collection_id=collection_id, docid__in=list(dict.fromkeys(docids)))
    return {doc.docid: doc for doc in query.only(*_DOCUMENT_FIELDS)}


def load_units(collection_id: int, hits: Sequence[Hit], block_kind: str = "sentence") -> list[Unit]:
    """Return one Unit per hit: its best passage (or first) with the sentences (or paragraphs) inside it."""
    documents = _documents(collection_id, (hit.docid for hit in hits))
    by_pk = {doc.pk: doc for doc in documents.values()}
    found = [(rank, hit, documents[hit.docid]) for rank, hit in enumerate(hits, start=1) if hit.docid in documents]
    passages = passages_at([(doc.pk, hit.passage) for _, hit, doc in found if hit.passage is not None])
    firsts = first_passages([doc.pk for _, hit, doc in found if hit.passage is None])
    planned = []
    for rank, hit, document in found:
        if hit.passage is None:
            passage = firsts.get(document.pk)
        else:
            passage = passages.get((document.pk, hit.passage))
        start, end = (passage.start, passage.end) if passage else (0, len(document.text))
        planned.append((rank, hit, document, passage, start, end))
    inside = regions_in_windows(block_kind, [(document.pk, start, end) for _, _, document, _, start, end in planned])
    fill_vectors([region for regions in inside for region in regions], by_pk)
    units: list[Unit] = []
    for (rank, hit, document, passage, start, end), regions in zip(planned, inside, strict=True):
        blocks = tuple(region_block(document, region) for region in regions)
        if not blocks:
            # A document without regions still gets judged: its passage is one block.
            blocks = (
                Block(document.docid, start, end, document.text[start:end], "paragraph", "", document.page_at(start)),
            )
        vector = None if passage is None else passage.embedding
        units.append(Unit(docid=document.docid, title=document.title, blocks=blocks, score=hit.score, rank=rank,
                          vector=vector))  # fmt: skip
    return units


def load_document_units(
    collection_id: int, docids: Sequence[str], block_kind: str = "paragraph", with_vectors: bool = False
) -> list[Unit]:
    """Return one Unit per document holding all its regions of one kind, in text order (a whole paper).

    `with_vectors` embeds and stores the vectors the regions lack first (a reader that scores every sentence
    then pays for them once, in whichever process reads the paper first).
    """
    documents = _documents(collection_id, docids)
    regions = regions_of_documents(block_kind, [documents[d].pk for d in docids if d in documents])
    if with_vectors:
        fill_vectors([r for rows in regions.values() for r in rows], {doc.pk: doc for doc in documents.values()})
    units: list[Unit] = []
    for docid in docids:
        document = documents.get(docid)
        if document is None:
            continue
        blocks = tuple(region_block(document, r) for r in regions[document.pk])
        if blocks:
            units.append(Unit(docid=docid, title=document.title, blocks=blocks))
    return units


def region_block(document: Document, region: Region | _Region) -> Block:
    """Return a stored region as a judge Block with its exact text, section label, page and vector."""
    return Block(
        document.docid,
        region.start,
        region.end,
        document.text[region.start : region.end],
        region.kind,
        region.label,
        region.page,
        region.ordinal,
        None if region.embedding is None else np.asarray(region.embedding, dtype=np.float32),
    )


UnitRef = tuple[str, int, int, float | None, int | None]  # docid, start, end, score, rank


def unit_ref(unit: Unit) -> UnitRef:
    """Identify a unit by its document and character range (enough to load it again in another process)."""
    return (unit.docid, unit.blocks[0].start, unit.blocks[-1].end, unit.score, unit.rank)


def load_units_by_ref(collection_id: int, refs: Sequence[UnitRef], block_kind: str = "sentence") -> list[Unit]:
    """Load units again from their refs: the same blocks, vectors and retrieval context as when they were made."""
    documents = _documents(collection_id, (ref[0] for ref in refs))
    found = [(ref, documents[ref[0]]) for ref in refs if ref[0] in documents]
    inside = regions_in_windows(block_kind, [(document.pk, ref[1], ref[2]) for ref, document in found])
    fill_vectors([region for regions in inside for region in regions], {doc.pk: doc for _, doc in found})
    passages = passages_containing([(document.pk, ref[1]) for ref, document in found])
    units: list[Unit] = []
    for ((docid, start, end, score, rank), document), regions in zip(found, inside, strict=True):
        whole = Block(docid, start, end, document.text[start:end], "paragraph", "", document.page_at(start))
        blocks = tuple(region_block(document, r) for r in regions) or (whole,)
        passage = passages.get((document.pk, start))
        vector = None if passage is None else passage.embedding
        units.append(Unit(docid=docid, title=document.title, blocks=blocks, score=score, rank=rank, vector=vector))
    return units
