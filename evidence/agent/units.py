"""Load judge units from the database: a passage of a document with its sentence blocks and stored vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..ingest.store import fill_region_vectors
from ..judge.types import Block, Unit
from ..models import Document, Passage, Region
from ..retrieval.types import Hit


def load_units(collection_id: int, hits: Sequence[Hit], block_kind: str = "sentence") -> list[Unit]:
    """Return one Unit per hit: its best passage (or first) with the sentences (or paragraphs) inside it."""
    docids = [hit.docid for hit in hits]
    documents = {doc.docid: doc for doc in Document.objects.filter(collection_id=collection_id, docid__in=docids)}
    by_pk = {doc.pk: doc for doc in documents.values()}
    passages: dict[tuple[int, int], Passage] = {
        (p.document_id, p.ordinal): p for p in Passage.objects.filter(document__in=by_pk.values())
    }
    first_ordinal: dict[int, int] = {}
    for document_id, ordinal in passages:
        first_ordinal[document_id] = min(ordinal, first_ordinal.get(document_id, ordinal))
    regions: dict[int, list[Region]] = {}
    for region in Region.objects.filter(document__in=by_pk.values(), kind=block_kind).order_by(
        "document_id", "ordinal"
    ):
        regions.setdefault(region.document_id, []).append(region)
    planned = []
    for rank, hit in enumerate(hits, start=1):
        document = documents.get(hit.docid)
        if document is None:
            continue
        ordinal = hit.passage if hit.passage is not None else first_ordinal.get(document.pk)
        passage = passages.get((document.pk, ordinal)) if ordinal is not None else None
        start, end = (passage.start, passage.end) if passage else (0, len(document.text))
        inside = [r for r in regions.get(document.pk, []) if r.start < end and r.end > start]
        planned.append((rank, hit, document, passage, start, end, inside))
    # Sentence vectors are made the first time System 1 reads them, then kept (ingest embeds passages only).
    fill_region_vectors([r for *_, inside in planned for r in inside], by_pk)
    units: list[Unit] = []
    for rank, hit, document, passage, start, end, inside in planned:
        blocks = tuple(region_block(document, region) for region in inside)
        if not blocks:
            # A document without regions still gets judged: its passage is one block.
            blocks = (
                Block(document.docid, start, end, document.text[start:end], "paragraph", "", document.page_at(start)),
            )
        units.append(
            Unit(
                docid=document.docid,
                title=document.title,
                blocks=blocks,
                score=hit.score,
                rank=rank,
                vector=None if passage is None or passage.embedding is None else np.asarray(passage.embedding),
            )
        )
    return units


def load_document_units(collection_id: int, docids: Sequence[str], block_kind: str = "paragraph") -> list[Unit]:
    """Return one Unit per document holding all its regions of one kind, in text order (a whole paper)."""
    documents = {doc.docid: doc for doc in Document.objects.filter(collection_id=collection_id, docid__in=list(docids))}
    units: list[Unit] = []
    for docid in docids:
        document = documents.get(docid)
        if document is None:
            continue
        regions = Region.objects.filter(document=document, kind=block_kind).order_by("ordinal")
        blocks = tuple(region_block(document, r) for r in regions)
        if blocks:
            units.append(Unit(docid=docid, title=document.title, blocks=blocks))
    return units


def region_block(document: Document, region: Region) -> Block:
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
    documents = {
        doc.docid: doc
        for doc in Document.objects.filter(collection_id=collection_id, docid__in=[ref[0] for ref in refs])
    }
    units: list[Unit] = []
    for docid, start, end, score, rank in refs:
        document = documents.get(docid)
        if document is None:
            continue
        regions = list(
            Region.objects.filter(document=document, kind=block_kind, start__lt=end, end__gt=start).order_by("ordinal")
        )
        fill_region_vectors(regions, {document.pk: document})
        whole = Block(docid, start, end, document.text[start:end], "paragraph", "", document.page_at(start))
        blocks = tuple(region_block(document, r) for r in regions) or (whole,)
        passage = Passage.objects.filter(document=document, start__lte=start, end__gt=start).first()
        vector = None if passage is None or passage.embedding is None else np.asarray(passage.embedding)
        units.append(Unit(docid=docid, title=document.title, blocks=blocks, score=score, rank=rank, vector=vector))
    return units
