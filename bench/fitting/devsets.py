"""Development sets as judge inputs: SciFact open retrieval, HotpotQA and QASPER questions as Units."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from bench.fitting import data as D
from evidence.ingest.types import ParsedDocument
from evidence.judge.types import Block, Unit
from evidence.retrieval.analyzer import get_analyzer
from evidence.retrieval.bm25 import BM25Index, BM25Params
from evidence.retrieval.fusion import hybrid_scores, reciprocal_rank_fusion


class Embeds(Protocol):
    """What the dev sets need of an embedder: its vectors and the model id the cache is keyed by."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _embedder(embedder: Embeds | None = None) -> Embeds:
    """Return the given embedder, else the process-wide one (the product's default model)."""
    if embedder is not None:
        return embedder
    from evidence.encode.embedding import get_embedder

    return get_embedder()


def make_unit(
    doc: ParsedDocument,
    kind: str,
    vectors: np.ndarray,
    unit_vec: np.ndarray | None,
    score: float | None = None,
    rank: int | None = None,
) -> Unit:
    """Build a Unit from a parsed document's regions of one kind and their stored vectors."""
    blocks = tuple(
        Block(doc.docid or "", r.start, r.end, doc.text[r.start : r.end], kind, r.label, r.page, i, vectors[i])
        for i, r in enumerate(doc.regions_of(kind))
    )
    return Unit(doc.docid or "", doc.title, blocks, score, rank, unit_vec)


@dataclass
class Collection:
    """Parsed documents with stored unit and region vectors (one region kind) and query vectors."""

    docs: list[ParsedDocument]
    kind: str
    unit_vecs: np.ndarray
    region_vecs: np.ndarray
    offsets: np.ndarray
    query_vecs: np.ndarray

    def unit(self, i: int, score: float | None = None, rank: int | None = None) -> Unit:
        """Return document i as a Unit with stored vectors and retrieval context."""
        vecs = self.region_vecs[self.offsets[i] : self.offsets[i + 1]]
        return make_unit(self.docs[i], self.kind, vecs, self.unit_vecs[i], score, rank)


@dataclass
class SciFact(Collection):
    """SciFact corpus, claims, and open retrieval (BM25 + MiniLM min-max fusion) over all abstracts."""

    claims: list[D.Claim] = None  # type: ignore[assignment]

    @cached_property
    def bm25(self) -> BM25Index:
        """Return a BM25 index over title + abstract (short documents: k1=0.9, b=0.4)."""
        analyze = get_analyzer("english")
        return BM25Index.build(
            [analyze(D.unit_text(d)) for d in self.docs], [d.docid or "" for d in self.docs], BM25Params(k1=0.9, b=0.4)
        )

    @cached_property
    def index_of(self) -> dict[str, int]:
        """Return docid -> document index."""
        return {d.docid or "": i for i, d in enumerate(self.docs)}

    def rankings(self, ci: int, depth: int = 1000) -> dict[str, list[tuple[int, float]]]:
        """Return the bm25, dense, fusion and rrf rankings for claim ci as (doc index, score) lists."""
        analyze = get_analyzer("english")
        bm = {self.bm25.ids[i]: s for i, s in self.bm25.top_k(analyze(self.claims[ci].text), depth)}
        cos = self.unit_vecs @ self.query_vecs[ci]
        top = np.argsort(-cos, kind="stable")[:depth]
        dense = {self.docs[i].docid or "": float(cos[i]) for i in top}
        fused = hybrid_scores(bm, dense, 0.5)
        rrf = dict(reciprocal_rank_fusion([sorted(bm, key=lambda d: -bm[d]), sorted(dense, key=lambda d: -dense[d])]))

        def ranked(scores: dict[str, float]) -> list[tuple[int, float]]:
            order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
            return [(self.index_of[d], float(s)) for d, s in order]

        return {"bm25": ranked(bm), "dense": ranked(dense), "fusion": ranked(fused), "rrf": ranked(rrf)}

    def candidate_units(self, ranking: Sequence[tuple[int, float]], k: int) -> list[Unit]:
        """Return the top k of a ranking as Units carrying score and rank."""
        return [self.unit(i, s, r) for r, (i, s) in enumerate(ranking[:k], start=1)]


def load_scifact(embedder: Embeds | None = None) -> SciFact:
    """Load SciFact with cached embeddings (computed on first use, several minutes on 2 cores)."""
    embedder = _embedder(embedder)
    docs = D.load_scifact_corpus()
    claims = D.load_scifact_claims(docs)
    arrays = D.embed_collection(
        "scifact",
        D.DATA_DIR / "scifact" / "corpus.jsonl",
        docs,
        [c.text for c in claims],
        "sentence",
        embedder.embed,
        embedder.model_id,
    )
    return SciFact(docs, "sentence", *arrays, claims=claims)


@dataclass
class QuestionSet(Collection):
    """Questions each over their own few documents (HotpotQA context paragraphs, a QASPER paper)."""

    questions: list[D.Question] = None  # type: ignore[assignment]

    def units_for(self, qi: int) -> list[Unit]:
        """Return the documents of question qi as Units."""
        index = {d.docid: i for i, d in enumerate(self.docs)}
        return [self.unit(index[d]) for d in self.questions[qi].docids]


def load_hotpotqa(embedder: Embeds | None = None) -> QuestionSet:
    """Load the 30 HotpotQA dev questions with cached embeddings."""
    embedder = _embedder(embedder)
    docs, qs = D.load_hotpotqa()
    arrays = D.embed_collection(
        "hotpotqa",
        D.DATA_DIR / "hotpotqa" / "hotpot-dev-distractor-30.json",
        docs,
        [q.text for q in qs],
        "sentence",
        embedder.embed,
        embedder.model_id,
    )
    return QuestionSet(docs, "sentence", *arrays, questions=qs)


def load_qasper(embedder: Embeds | None = None) -> QuestionSet:
    """Load the 25 QASPER dev questions with cached paragraph embeddings."""
    embedder = _embedder(embedder)
    docs, qs = D.load_qasper()
    arrays = D.embed_collection(
        "qasper",
        D.DATA_DIR / "qasper" / "qasper-dev-sample.json",
        docs,
        [q.text for q in qs],
        "paragraph",
        embedder.embed,
        embedder.model_id,
    )
    return QuestionSet(docs, "paragraph", *arrays, questions=qs)
