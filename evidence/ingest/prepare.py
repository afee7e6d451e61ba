"""Prepare papers for reading: the sentence and paragraph vectors System 1 compares a question with, computed in
the background once a file is indexed, so a question does not pay for them.

Work goes in small chunks (`CHUNK` regions, about a second on two cores): a chunk's task sends the next one, so a
question or an upload waiting in the queue is taken between two chunks rather than after the whole collection.
Each chunk commits its vectors, so an interrupted preparation resumes where it stopped. A run still reads a paper
whose sentences are not ready: it embeds the ones it reads (units.fill_vectors) and says so in its progress.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db.models import Count, Q

from ..models import Document, Region

KINDS = (Region.Kind.SENTENCE, Region.Kind.PARAGRAPH)  # what System 1 reads: sentences, a scoped paper's paragraphs
CHUNK = 128
DOCUMENTS_PER_LOOKUP = 32


def prepare_some(document_ids: Sequence[int], limit: int = CHUNK) -> tuple[int, list[int]]:
    """Embed up to `limit` regions of these documents that have no vector yet; return how many were embedded and
    the documents that may still have some (the ones this chunk did not finish)."""
    from .store import fill_region_vectors

    remaining = list(dict.fromkeys(document_ids))
    rows: list[Region] = []
    while remaining and len(rows) < limit:
        head = remaining[:DOCUMENTS_PER_LOOKUP]
        wanted = limit - len(rows)
        found = list(
            Region.objects.filter(document_id__in=head, kind__in=KINDS, embedding__isnull=True)
            .order_by("document_id", "kind", "ordinal")
            .only("pk", "document_id", "kind", "ordinal", "start", "end", "embedding")[:wanted]
        )
        rows.extend(found)
        if len(found) == wanted:
            # The chunk is full: the documents up to the last region taken may still lack vectors.
            remaining = remaining[remaining.index(found[-1].document_id) :]
            break
        remaining = remaining[len(head) :]
    if not rows:
        return 0, []
    documents = {d.pk: d for d in Document.objects.filter(pk__in={r.document_id for r in rows}).only("pk", "text")}
    return fill_region_vectors(rows, documents), remaining


def prepare_all(document_ids: Sequence[int], on_progress: Callable[[int], None] | None = None) -> int:
    """Embed every missing region of these documents here, chunk by chunk; return how many were embedded."""
    total, remaining = 0, list(document_ids)
    while remaining:
        embedded, remaining = prepare_some(remaining)
        total += embedded
        if on_progress is not None and embedded:
            on_progress(embedded)
    return total


def readiness(collection_id: int) -> tuple[int, int]:
    """(regions prepared, regions System 1 reads) of a collection: "ready for questions" when the two are equal."""
    counts = Region.objects.filter(document__collection_id=collection_id, kind__in=KINDS).aggregate(
        total=Count("id"), ready=Count("id", filter=Q(embedding__isnull=False))
    )
    return counts["ready"], counts["total"]
