"""Per-collection BM25 indexes kept in Postgres as appended segments, cached in each process by version.

Any worker on any machine reads the same index with only Postgres shared. Ingest appends one segment per call
(the new documents' postings, both levels) under the collection's row lock, so versions form one sequence per
collection; it never rewrites what is stored, so a file's cost does not grow with the collection. Runs of
MERGE_FACTOR segments of one size class are merged into one (Lucene's tiered merging in small), which keeps a
cold load to a few blobs and costs each document O(log n) merges over its life. A process keeps the index in
memory and, when the version moves, fetches only the segments it lacks. Merges run in a background thread after
the append commits (schedule_merge), not inside the ingest that appended.
"""

from __future__ import annotations

import atexit
import copy
import io
import json
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max

from ..models import Collection, Document, IndexSegment, Passage
from .analyzer import get_analyzer
from .bm25 import BM25Index, BM25Params
from .hybrid import HybridBM25

MERGE_FACTOR = 8


@dataclass
class CollectionIndex:
    """Both BM25 levels of one collection, plus what the searchers need to map hits back."""

    version: int
    analyzer_name: str
    documents: BM25Index
    passages: BM25Index
    passage_docids: list[str]
    passage_ordinals: list[int]
    _hybrid: HybridBM25 | None = field(default=None, init=False, repr=False, compare=False)

    def analyze(self, text: str) -> list[str]:
        return get_analyzer(self.analyzer_name)(text)

    def hybrid(self) -> HybridBM25:
        """Return the fused searcher, made once per index (its docid tables are built on its first search)."""
        if self._hybrid is None:
            self._hybrid = HybridBM25(self.documents, self.passages, self.passage_docids, self.passage_ordinals)
        return self._hybrid

    def extended(self, segment: CollectionIndex) -> CollectionIndex:
        """Return a new index with the segment's units after these (searches holding this one are not disturbed)."""
        documents, passages = copy.copy(self.documents), copy.copy(self.passages)
        documents.extend(segment.documents)
        passages.extend(segment.passages)
        return CollectionIndex(segment.version, self.analyzer_name, documents, passages,
                               self.passage_docids + segment.passage_docids,
                               self.passage_ordinals + segment.passage_ordinals)  # fmt: skip


def collection_params(collection: Collection) -> tuple[BM25Params, BM25Params]:
    params = collection.bm25_params or {}
    doc = params.get("document", {"k1": 25.0, "b": 1.0})
    passage = params.get("passage", {"k1": 0.9, "b": 0.4})
    lossy = collection.analyzer == "lucene"
    return (
        BM25Params(k1=float(doc["k1"]), b=float(doc["b"]), lossy_lengths=lossy),
        BM25Params(k1=float(passage["k1"]), b=float(passage["b"]), lossy_lengths=lossy),
    )


# -- segments --------------------------------------------------------------------------------------------------


def encode(index: CollectionIndex) -> bytes:
    """Serialize an index (a segment) to bytes: its arrays and a JSON header in one uncompressed npz."""
    d_arrays, d_header = index.documents.to_arrays()
    p_arrays, p_header = index.passages.to_arrays()
    header = {"analyzer": index.analyzer_name, "documents": d_header, "passages": p_header,
              "passage_docids": index.passage_docids, "passage_ordinals": index.passage_ordinals}  # fmt: skip
    buffer = io.BytesIO()
    np.savez(buffer, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
             **{f"d_{k}": v for k, v in d_arrays.items()}, **{f"p_{k}": v for k, v in p_arrays.items()})  # fmt: skip
    return buffer.getvalue()


def decode(data: bytes | memoryview, version: int) -> CollectionIndex:
    """Read a segment written by encode."""
    with np.load(io.BytesIO(bytes(data))) as npz:
        header = json.loads(npz["header"].tobytes())
        d = {k[2:]: npz[k] for k in npz.files if k.startswith("d_")}
        p = {k[2:]: npz[k] for k in npz.files if k.startswith("p_")}
    return CollectionIndex(version, header["analyzer"], BM25Index.from_arrays(d, header["documents"]),
                           BM25Index.from_arrays(p, header["passages"]), list(header["passage_docids"]),
                           [int(x) for x in header["passage_ordinals"]])  # fmt: skip


def build_segment(collection: Collection, document_ids: Sequence[int], version: int) -> CollectionIndex:
    """Analyze documents (in id order) into a segment of both levels."""
    analyze = get_analyzer(collection.analyzer)
    doc_params, passage_params = collection_params(collection)
    doc_texts, doc_ids, passage_texts, passage_docids, passage_ordinals = _unit_texts(document_ids)
    return CollectionIndex(
        version=version,
        analyzer_name=collection.analyzer,
        documents=BM25Index.build([analyze(t) for t in doc_texts], doc_ids, doc_params),
        passages=BM25Index.build([analyze(t) for t in passage_texts], passage_docids, passage_params),
        passage_docids=passage_docids,
        passage_ordinals=passage_ordinals,
    )


def _unit_texts(document_ids: Sequence[int]) -> tuple[list[str], list[str], list[str], list[str], list[int]]:
    """Return (doc texts, doc ids, passage texts, passage docids, passage ordinals) in a stable order."""
    documents = {
        pk: (docid, title, text)
        for pk, docid, title, text in Document.objects.filter(pk__in=document_ids).values_list(
            "pk", "docid", "title", "text"
        )
    }
    ordered = sorted(documents)
    doc_texts = [f"{documents[pk][1]}\n{documents[pk][2]}" for pk in ordered]
    doc_ids = [documents[pk][0] for pk in ordered]
    passage_texts: list[str] = []
    passage_docids: list[str] = []
    passage_ordinals: list[int] = []
    rows = Passage.objects.filter(document_id__in=ordered).order_by("document_id", "ordinal")
    for document_id, ordinal, start, end in rows.values_list("document_id", "ordinal", "start", "end"):
        docid, title, text = documents[document_id]
        passage_texts.append(f"{title}\n{text[start:end]}")
        passage_docids.append(docid)
        passage_ordinals.append(ordinal)
    return doc_texts, doc_ids, passage_texts, passage_docids, passage_ordinals


# -- writing ---------------------------------------------------------------------------------------------------


def current_version(collection_id: int) -> int | None:
    """Return the collection's index version (its newest segment), None when it has no index."""
    return IndexSegment.objects.filter(collection_id=collection_id).aggregate(v=Max("version"))["v"]


def add_documents(collection_id: int, document_ids: Sequence[int]) -> int:
    """Append the documents the index lacks as one segment (none: nothing written); return the index version."""
    with transaction.atomic():
        # The row lock orders every writer of this collection, on any machine: one version sequence.
        collection = Collection.objects.select_for_update().get(pk=collection_id)
        version = current_version(collection_id) or 0
        wanted = sorted(
            Document.objects.filter(pk__in=document_ids, collection_id=collection_id, index_version=None).values_list(
                "pk", flat=True
            )
        )
        if not wanted:
            return version
        version += 1
        segment = build_segment(collection, wanted, version)
        IndexSegment.objects.create(collection_id=collection_id, first_version=version, version=version,
                                    documents=len(wanted), data=encode(segment))  # fmt: skip
        Document.objects.filter(pk__in=wanted).update(index_version=version)
    schedule_merge(collection_id)
    return version


def size_class(documents: int) -> int:
    return int(math.log(max(documents, 1), MERGE_FACTOR))


def _mergeable_run(rows: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]] | None:
    """Return the first MERGE_FACTOR consecutive segments (in version order) of one size class, if any."""
    run: list[tuple[int, int, int, int]] = []
    for row in rows:
        if run and size_class(row[3]) != size_class(run[-1][3]):
            run = []
        run.append(row)
        if len(run) == MERGE_FACTOR:
            return run
    return None


def merge_segments(collection_id: int) -> int:
    """Merge runs of MERGE_FACTOR consecutive segments of one size class into one, until none is left; return how
    many merges.

    A merged segment covers the same versions as the ones it replaces, so the version sequence does not move and a
    reader holding those versions keeps its index. Any run merges, not only the newest, so merges skipped while
    segments were appended (a process that ended first) are caught up by the next one.
    """
    merges = 0
    while True:
        with transaction.atomic():
            Collection.objects.select_for_update().get(pk=collection_id)
            rows = list(
                IndexSegment.objects.filter(collection_id=collection_id)
                .order_by("version")
                .values_list("pk", "first_version", "version", "documents")
            )
            run = _mergeable_run(rows)
            if run is None:
                return merges
            blobs = dict(IndexSegment.objects.filter(pk__in=[r[0] for r in run]).values_list("pk", "data"))
            merged = decode(blobs[run[0][0]], run[0][2])
            for pk, _, version, _ in run[1:]:
                merged = merged.extended(decode(blobs[pk], version))
            IndexSegment.objects.filter(pk__in=[r[0] for r in run]).delete()
            IndexSegment.objects.create(collection_id=collection_id, first_version=run[0][1], version=run[-1][2],
                                        documents=sum(r[3] for r in run), data=encode(merged))  # fmt: skip
            merges += 1


# -- background merges ------------------------------------------------------------------------------------------
# Ingest appends its segment and returns; merges run after it in one thread per process, collections queued at
# most once. Inside a caller's transaction (a test, or a caller that wants it) the merge runs inline instead:
# a thread could not see the uncommitted segment. merge_segments takes the collection's row lock, so merges from
# several processes take turns and never break the version sequence.

_merges = threading.Condition()
_merge_queue: list[int] = []
_merging = 0
_merge_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


def schedule_merge(collection_id: int) -> None:
    """Merge the collection's small segments soon, off the caller's path (inline inside a transaction)."""
    if connection.in_atomic_block or not settings.EVIDENCE_BACKGROUND_MERGES:
        merge_segments(collection_id)
        return
    global _merge_thread
    with _merges:
        if collection_id not in _merge_queue:
            _merge_queue.append(collection_id)
        if _merge_thread is None or not _merge_thread.is_alive():
            _merge_thread = threading.Thread(target=_merge_forever, name="index-merges", daemon=True)
            _merge_thread.start()
        _merges.notify_all()


def _merge_forever() -> None:
    global _merging
    while True:
        with _merges:
            while not _merge_queue:
                _merges.wait()
            collection_id = _merge_queue.pop(0)
            _merging += 1
        try:
            merge_segments(collection_id)
        except Collection.DoesNotExist:
            pass  # deleted meanwhile: its segments went with it
        except Exception:  # the next append schedules the merge again
            log.exception("merging collection %s's index segments failed", collection_id)
        finally:
            with _merges:
                _merging -= 1
                idle = not _merge_queue
                _merges.notify_all()
            if idle:
                connection.close()  # hold no connection while idle (a test database can be dropped)


def wait_for_merges(timeout: float | None = None) -> bool:
    """Block until this process's queued merges are done; False if timeout passed first."""
    with _merges:
        return _merges.wait_for(lambda: not _merge_queue and not _merging, timeout)


atexit.register(wait_for_merges, 120.0)  # a CLI ingest does not leave its last merges undone


def rebuild(collection_id: int) -> int:
    """Rebuild the collection's index from the database (after a parameter change, or to repair it)."""
    with transaction.atomic():
        Collection.objects.select_for_update().get(pk=collection_id)
        IndexSegment.objects.filter(collection_id=collection_id).delete()
        Document.objects.filter(collection_id=collection_id).update(index_version=None)
    ids = list(Document.objects.filter(collection_id=collection_id).values_list("pk", flat=True))
    return add_documents(collection_id, ids)


# -- reading ---------------------------------------------------------------------------------------------------

_cache: dict[int, CollectionIndex] = {}
_cache_lock = threading.Lock()


def load(collection_id: int) -> CollectionIndex:
    """Return the collection's index, cached per process and brought up to date when its version moves."""
    for _ in range(5):
        rows = list(
            IndexSegment.objects.filter(collection_id=collection_id)
            .order_by("version")
            .values_list("pk", "first_version", "version")
        )
        if not rows:
            if Document.objects.filter(collection_id=collection_id).exists():
                rebuild(collection_id)  # a collection indexed before indexes moved into Postgres
                continue
            raise LookupError(f"collection {collection_id} has no index yet: ingest documents into it first")
        latest = rows[-1][2]
        with _cache_lock:
            cached = _cache.get(collection_id)
        if cached is not None and cached.version == latest:
            return cached
        newer = [row for row in rows if cached is not None and row[2] > cached.version]
        if cached is None or any(first <= cached.version for _, first, _ in newer):
            base, needed = None, rows  # nothing cached, or a merge spans what we hold: read it all again
        else:
            base, needed = cached, newer
        blobs = dict(IndexSegment.objects.filter(pk__in=[r[0] for r in needed]).values_list("pk", "data"))
        if len(blobs) != len(needed):
            continue  # merged away between the two reads: list the segments again
        index = base
        for pk, _, version in needed:
            segment = decode(blobs[pk], version)
            index = segment if index is None else index.extended(segment)
        assert index is not None
        with _cache_lock:
            held = _cache.get(collection_id)
            if held is None or held.version < index.version:
                _cache[collection_id] = index
        return index
    raise RuntimeError(f"collection {collection_id}'s index kept changing while it was read: try again")
