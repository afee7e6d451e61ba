"""Re-embed a collection whose vectors were made with another model than the current one (embedding.MODEL_ID)."""

from __future__ import annotations

from collections.abc import Callable

from ..models import Collection, Passage, Region
from .store import Embed, passage_index_text

BATCH = 256  # passages per model call and per UPDATE


def stale_collections() -> list[Collection]:
    """Return the collections whose stored vectors come from another model than the current one."""
    from ..encode import MODEL_ID

    return list(Collection.objects.exclude(embedding_model=MODEL_ID).order_by("pk"))


def reembed_collection(
    collection: Collection, embed: Embed | None = None, on_progress: Callable[[int], None] | None = None
) -> int:
    """Embed every passage again with the current model, drop region vectors (remade on first use); return passages.

    Passages stored meanwhile by ingestion are embedded with the current model already; the collection is marked
    current only after the last batch, so an interrupted run is simply run again.
    """
    from ..encode import MODEL_ID, get_embedder

    embed = embed or get_embedder().embed
    documents = collection.documents.only("pk", "title", "text")
    done = 0
    pending: list[tuple[Passage, str]] = []

    def flush() -> None:
        nonlocal done
        vectors = embed([text for _, text in pending])
        for (passage, _), vector in zip(pending, vectors, strict=True):
            passage.embedding = vector
        Passage.objects.bulk_update([p for p, _ in pending], ["embedding"], batch_size=BATCH)
        done += len(pending)
        if on_progress is not None:
            on_progress(len(pending))
        pending.clear()

    for document in documents.iterator(chunk_size=200):
        for passage in Passage.objects.filter(document=document).only("pk", "start", "end").order_by("ordinal"):
            pending.append((passage, passage_index_text(document.title, document.text[passage.start : passage.end])))
        if len(pending) >= BATCH:
            flush()
    if pending:
        flush()
    Region.objects.filter(document__collection=collection).exclude(embedding=None).update(embedding=None)
    Collection.objects.filter(pk=collection.pk).update(embedding_model=MODEL_ID)
    collection.embedding_model = MODEL_ID
    return done
