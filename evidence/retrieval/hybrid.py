"""Hybrid BM25 (JevGPT eq. 5): fuse a document-level and a passage-level BM25 ranking."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.fusion import minmax_array
from evidence.retrieval.types import Hit

# SPEC section 3: long documents at document level (k1 and b of the long-document web benchmark), passages at
# Lucene defaults.
DOC_PARAMS = BM25Params(k1=25.0, b=1.0)
PASSAGE_PARAMS = BM25Params(k1=0.9, b=0.4)


@dataclass(frozen=True)
class HybridResult:
    """Fused hits plus, per docid, its best retrieved passages as (ordinal, passage score), best first."""

    hits: list[Hit]
    passages: dict[str, list[tuple[int, float]]]


class HybridBM25:
    """Two BM25 indexes, one over whole documents and one over passages that map to a docid.

    Fusion runs on arrays: each passage's document is an index into one docid table (the document index's ids,
    then any docid only passages name), and ties break by each docid's rank in string order, computed once.
    """

    def __init__(
        self,
        doc_index: BM25Index,
        passage_index: BM25Index,
        passage_docids: Sequence[str],
        passage_ordinals: Sequence[int],
        weight: float = 0.5,
        max_passages: int = 2,
    ) -> None:
        if not len(passage_docids) == len(passage_ordinals) == len(passage_index):
            raise ValueError("passage_docids and passage_ordinals need one entry per passage unit")
        self.doc_index = doc_index
        self.passage_index = passage_index
        self.passage_docids = passage_docids
        self.passage_ordinals = passage_ordinals
        self.weight = weight
        self.max_passages = max_passages
        self._tables: tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None = None

    def _prepared(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return (docid table, passage -> table index, passage ordinals, table index -> rank in string order)."""
        if self._tables is None:
            docids = list(self.doc_index.ids)
            position = {docid: i for i, docid in enumerate(docids)}
            for docid in self.passage_docids:
                if docid not in position:
                    position[docid] = len(docids)
                    docids.append(docid)
            passage_doc = np.fromiter((position[d] for d in self.passage_docids), dtype=np.int64,
                                      count=len(self.passage_docids))  # fmt: skip
            ordinals = np.asarray(self.passage_ordinals, dtype=np.int64)
            rank = np.empty(len(docids), dtype=np.int64)
            rank[sorted(range(len(docids)), key=docids.__getitem__)] = np.arange(len(docids))
            table = np.empty(len(docids), dtype=object)
            table[:] = docids
            self._tables = (table, passage_doc, ordinals, rank)
        return self._tables

    def _fuse(self, query_tokens: Sequence[str], depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return (ranked table indexes, fused scores, the passage top-k's indexes and scores)."""
        _, passage_doc, _, rank = self._prepared()
        d_idx, d_scores = self.doc_index.top_k_arrays(query_tokens, depth)
        p_idx, p_scores = self.passage_index.top_k_arrays(query_tokens, depth)
        # passages come best first, so a document's first passage is its best
        best_docs, first = np.unique(passage_doc[p_idx], return_index=True)
        docs = np.union1d(d_idx, best_docs)
        d_norm = np.zeros(len(docs))
        d_norm[np.searchsorted(docs, d_idx)] = minmax_array(d_scores)
        p_norm = np.zeros(len(docs))
        p_norm[np.searchsorted(docs, best_docs)] = minmax_array(p_scores[first])
        fused = self.weight * d_norm + (1 - self.weight) * p_norm
        order = np.lexsort((rank[docs], -fused))[:depth]
        return docs[order], fused[order], p_idx, p_scores

    def _hits(self, docs: np.ndarray, fused: np.ndarray, p_idx: np.ndarray) -> list[Hit]:
        table, passage_doc, ordinals, _ = self._prepared()
        p_docs = passage_doc[p_idx]
        best_docs, first = np.unique(p_docs, return_index=True)
        best = np.full(len(docs), -1, dtype=np.int64)
        at = np.searchsorted(best_docs, docs).clip(0, max(len(best_docs) - 1, 0))
        found = best_docs[at] == docs if len(best_docs) else np.zeros(len(docs), dtype=bool)
        best[found] = ordinals[p_idx[first[at[found]]]]
        passages = [None if o < 0 else o for o in best.tolist()]
        return list(map(Hit, table[docs].tolist(), fused.tolist(), passages))

    def search_detailed(self, query_tokens: Sequence[str], depth: int = 1000) -> HybridResult:
        """Retrieve depth units on each side, fuse, and keep each document's best passages."""
        docs, fused, p_idx, p_scores = self._fuse(query_tokens, depth)
        hits = self._hits(docs, fused, p_idx)
        table, passage_doc, ordinals, _ = self._prepared()
        p_docs = passage_doc[p_idx]
        wanted = set(docs.tolist())
        passages: dict[str, list[tuple[int, float]]] = {}
        # passages are best first: each document keeps its first max_passages
        for doc, ordinal, score in zip(p_docs.tolist(), ordinals[p_idx].tolist(), p_scores.tolist(), strict=True):
            if doc in wanted:
                best = passages.setdefault(table[doc], [])
                if len(best) < self.max_passages:
                    best.append((ordinal, score))
        return HybridResult(hits, {h.docid: passages[h.docid] for h in hits if h.docid in passages})

    def search(self, query_tokens: Sequence[str], depth: int = 1000) -> list[Hit]:
        """Return the fused ranking; Hit.passage is the ordinal of the document's best passage."""
        docs, fused, p_idx, _ = self._fuse(query_tokens, depth)
        return self._hits(docs, fused, p_idx)
