"""Per-collection BM25 indexes on disk: updated incrementally on ingest, loaded once per process."""

from __future__ import annotations

import fcntl
import json
import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from ..models import Collection, Document, Passage
from .analyzer import get_analyzer
from .bm25 import BM25Index, BM25Params
from .hybrid import HybridBM25

META = "meta.json"


@dataclass
class CollectionIndex:
    """Both BM25 levels of one collection, plus what the searchers need to map hits back."""

    version: int
    analyzer_name: str
    documents: BM25Index
    passages: BM25Index
    passage_docids: list[str]
    passage_ordinals: list[int]

    def analyze(self, text: str) -> list[str]:
        return get_analyzer(self.analyzer_name)(text)

    def hybrid(self) -> HybridBM25:
        return HybridBM25(self.documents, self.passages, self.passage_docids, self.passage_ordinals)


def index_dir(collection_id: int) -> Path:
    return Path(settings.EVIDENCE_INDEX_DIR) / str(collection_id)


def collection_params(collection: Collection) -> tuple[BM25Params, BM25Params]:
    params = collection.bm25_params or {}
    doc = params.get("document", {"k1": 25.0, "b": 1.0})
    passage = params.get("passage", {"k1": 0.9, "b": 0.4})
    lossy = collection.analyzer == "lucene"
    return (
        BM25Params(k1=float(doc["k1"]), b=float(doc["b"]), lossy_lengths=lossy),
        BM25Params(k1=float(passage["k1"]), b=float(passage["b"]), lossy_lengths=lossy),
    )


@contextmanager
def _locked(collection_id: int) -> Iterator[Path]:
    folder = index_dir(collection_id)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as handle:
        # Two workers ingesting into one collection must not interleave their read-modify-write.
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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


def add_documents(collection_id: int, document_ids: Sequence[int]) -> int:
    """Add documents to the collection's index (building it when absent); return the new version."""
    collection = Collection.objects.get(pk=collection_id)
    analyze = get_analyzer(collection.analyzer)
    doc_params, passage_params = collection_params(collection)
    with _locked(collection_id) as folder:
        current = _read(folder, mmap=False)
        indexed = set(current.documents.ids) if current else set()
        wanted = [
            pk
            for pk, docid in Document.objects.filter(pk__in=document_ids).values_list("pk", "docid")
            if docid not in indexed
        ]
        doc_texts, doc_ids, passage_texts, passage_docids, passage_ordinals = _unit_texts(wanted)
        doc_tokens = [analyze(text) for text in doc_texts]
        passage_tokens = [analyze(text) for text in passage_texts]
        if current is None:
            current = CollectionIndex(
                version=0,
                analyzer_name=collection.analyzer,
                documents=BM25Index.build(doc_tokens, doc_ids, doc_params),
                passages=BM25Index.build(passage_tokens, passage_docids, passage_params),
                passage_docids=passage_docids,
                passage_ordinals=passage_ordinals,
            )
        else:
            current.documents.add(doc_tokens, doc_ids)
            current.passages.add(passage_tokens, passage_docids)
            current.passage_docids += passage_docids
            current.passage_ordinals += passage_ordinals
        current.version += 1
        _write(folder, current)
        return current.version


def rebuild(collection_id: int) -> int:
    """Rebuild the collection's index from the database (after a parameter change, or to repair it)."""
    with _locked(collection_id) as folder:
        for child in ("documents", "passages", META, "version"):
            path = folder / child
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
    ids = list(Document.objects.filter(collection_id=collection_id).values_list("pk", flat=True))
    return add_documents(collection_id, ids)


def _write(folder: Path, index: CollectionIndex) -> None:
    # Each level is saved atomically by BM25Index.save; meta.json is replaced last, so a reader that sees
    # a new version sees complete arrays.
    index.documents.save(folder / "documents")
    index.passages.save(folder / "passages")
    meta = {
        "version": index.version,
        "analyzer": index.analyzer_name,
        "passage_docids": index.passage_docids,
        "passage_ordinals": index.passage_ordinals,
    }
    tmp = folder / (META + ".tmp")
    tmp.write_text(json.dumps(meta))
    tmp.replace(folder / META)
    version_tmp = folder / "version.tmp"
    version_tmp.write_text(str(index.version))
    version_tmp.replace(folder / "version")


def _read(folder: Path, mmap: bool = True) -> CollectionIndex | None:
    meta_path = folder / META
    if not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text())
    return CollectionIndex(
        version=int(meta["version"]),
        analyzer_name=meta["analyzer"],
        documents=BM25Index.load(folder / "documents", mmap=mmap),
        passages=BM25Index.load(folder / "passages", mmap=mmap),
        passage_docids=list(meta["passage_docids"]),
        passage_ordinals=[int(x) for x in meta["passage_ordinals"]],
    )


_cache: dict[int, CollectionIndex] = {}
_cache_lock = threading.Lock()


def current_version(collection_id: int) -> int | None:
    try:
        return int((index_dir(collection_id) / "version").read_text())
    except FileNotFoundError:
        return None


def load(collection_id: int) -> CollectionIndex:
    """Return the collection's index, loaded once per process and reloaded only when its version moves."""
    version = current_version(collection_id)
    with _cache_lock:
        cached = _cache.get(collection_id)
        if cached is not None and cached.version == version:
            return cached
        with _locked(collection_id) as folder:
            loaded = _read(folder)
        if loaded is None:
            raise LookupError(f"collection {collection_id} has no index yet: ingest documents into it first")
        _cache[collection_id] = loaded
        return loaded
