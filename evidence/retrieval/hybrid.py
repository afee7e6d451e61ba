"""Hybrid BM25 (JevGPT eq. 5): fuse a document-level and a passage-level BM25 ranking."""

from collections.abc import Sequence
from dataclasses import dataclass

from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.fusion import hybrid_scores
from evidence.retrieval.types import Hit

# SPEC section 3: long documents at document level (BrowseComp-Plus), passages at Lucene defaults.
DOC_PARAMS = BM25Params(k1=25.0, b=1.0)
PASSAGE_PARAMS = BM25Params(k1=0.9, b=0.4)


@dataclass(frozen=True)
class HybridResult:
    """Fused hits plus, per docid, its best retrieved passages as (ordinal, passage score), best first."""

    hits: list[Hit]
    passages: dict[str, list[tuple[int, float]]]


class HybridBM25:
    """Two BM25 indexes, one over whole documents and one over passages that map to a docid."""

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
        self.passage_docids = list(passage_docids)
        self.passage_ordinals = list(passage_ordinals)
        self.weight = weight
        self.max_passages = max_passages

    def search_detailed(self, query_tokens: Sequence[str], depth: int = 1000) -> HybridResult:
        """Retrieve depth units on each side, fuse, and keep each document's best passages."""
        doc_scores = {self.doc_index.ids[i]: s for i, s in self.doc_index.top_k(query_tokens, depth)}
        passage_max: dict[str, float] = {}
        passages: dict[str, list[tuple[int, float]]] = {}
        # top_k is sorted by score, so the first passage seen for a document is its best
        for i, s in self.passage_index.top_k(query_tokens, depth):
            docid = self.passage_docids[i]
            best = passages.setdefault(docid, [])
            if not best:
                passage_max[docid] = s
            if len(best) < self.max_passages:
                best.append((self.passage_ordinals[i], s))
        fused = hybrid_scores(doc_scores, passage_max, self.weight)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:depth]
        hits = [Hit(d, s, passages[d][0][0] if d in passages else None) for d, s in ranked]
        return HybridResult(hits, {h.docid: passages[h.docid] for h in hits if h.docid in passages})

    def search(self, query_tokens: Sequence[str], depth: int = 1000) -> list[Hit]:
        """Return the fused ranking; Hit.passage is the ordinal of the document's best passage."""
        return self.search_detailed(query_tokens, depth).hits
