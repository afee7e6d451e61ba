"""Selectable searchers over one collection: `bm25`, `hybrid`, `dense`, `hybrid+dense`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from . import index_store
from .dense import dense_search
from .fusion import reciprocal_rank_fusion
from .types import Hit

SEARCHERS = ("bm25", "hybrid", "dense", "hybrid+dense")


class Searcher(Protocol):
    name: str

    def search(self, query: str, depth: int = 1000) -> list[Hit]: ...


@dataclass
class BM25Searcher:
    """Document-level BM25 with the collection's analyzer and parameters."""

    collection_id: int
    name: str = "bm25"

    def search(self, query: str, depth: int = 1000) -> list[Hit]:
        index = index_store.load(self.collection_id)
        return index.documents.search(index.analyze(query), depth)


@dataclass
class HybridSearcher:
    """JevGPT eq. 5: min-max fused document BM25 and best-passage BM25, each side at `depth`."""

    collection_id: int
    name: str = "hybrid"

    def search(self, query: str, depth: int = 1000) -> list[Hit]:
        index = index_store.load(self.collection_id)
        return index.hybrid().search(index.analyze(query), depth)


@dataclass
class DenseSearcher:
    """MiniLM query embedding against passage vectors in pgvector."""

    collection_id: int
    name: str = "dense"

    def search(self, query: str, depth: int = 1000) -> list[Hit]:
        from ..encode import get_embedder

        if not query.strip():
            return []
        return dense_search(self.collection_id, get_embedder().embed([query])[0], depth)


@dataclass
class FusedSearcher:
    """Reciprocal-rank fusion of the hybrid BM25 and dense rankings."""

    collection_id: int
    name: str = "hybrid+dense"

    def search(self, query: str, depth: int = 1000) -> list[Hit]:
        lexical = HybridSearcher(self.collection_id).search(query, depth)
        dense = DenseSearcher(self.collection_id).search(query, depth)
        passages = {hit.docid: hit.passage for hit in dense} | {hit.docid: hit.passage for hit in lexical}
        fused = reciprocal_rank_fusion([[h.docid for h in lexical], [h.docid for h in dense]])
        return [Hit(docid, score, passages.get(docid)) for docid, score in fused[:depth]]


def get_searcher(name: str, collection_id: int) -> Searcher:
    """Return the searcher called `name`; unknown names raise ValueError listing the known ones."""
    classes = {"bm25": BM25Searcher, "hybrid": HybridSearcher, "dense": DenseSearcher, "hybrid+dense": FusedSearcher}
    if name not in classes:
        raise ValueError(f"unknown searcher {name!r}: choose one of {', '.join(SEARCHERS)}")
    return classes[name](collection_id)
