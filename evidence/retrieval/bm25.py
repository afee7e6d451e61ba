"""BM25 over a term -> postings (CSR) layout of raw term frequencies.

Only raw tf and unit lengths are stored; idf and length normalisation are derived lazily, so adding
units (which changes N, avgdl and idf) is a cheap append and gives the same index as a rebuild. A
query touches only the postings of its own terms.

``scores`` returns float64. The "lucene" variant reproduces Lucene's BM25Similarity arithmetic: each
term's contribution in float32 (``w - w / (1 + tf * normInverse)``), contributions summed in float64
and the sum rounded to float32, so scores and ties match Lucene/Anserini bit for bit. The "okapi"
variant is rank_bm25.BM25Okapi's formula in float64.
"""

import json
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from evidence.retrieval.postings import merge, postings
from evidence.retrieval.smallfloat import LENGTH_TABLE, encode_lengths
from evidence.retrieval.topk import top_k_indices
from evidence.retrieval.types import Hit

VARIANTS = ("lucene", "okapi")
IMPACT_CACHE_BYTES = 256 * 2**20  # per index: the query terms' contributions, see BM25Index._term_scores
_FORMAT = 1


@dataclass(frozen=True)
class BM25Params:
    """BM25 parameters; variant "lucene" (Lucene >= 8) or "okapi" (rank_bm25.BM25Okapi)."""

    k1: float = 0.9
    b: float = 0.4
    variant: str = "lucene"
    lossy_lengths: bool = False  # Lucene's one-byte length encoding, for Anserini parity
    epsilon: float = 0.25  # okapi only: idf floor as a fraction of the mean idf

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown BM25 variant {self.variant!r}; known variants: {', '.join(VARIANTS)}")


class BM25Index:
    """A BM25 index over retrieval units (documents or passages) identified by string ids."""

    def __init__(
        self,
        vocab: dict[str, int],
        indptr: np.ndarray,
        units: np.ndarray,
        tfs: np.ndarray,
        lengths: np.ndarray,
        ids: Sequence[str],
        params: BM25Params,
    ) -> None:
        self.vocab = vocab
        self.ids = list(ids)
        self.params = params
        self._indptr, self._units, self._tfs, self._lengths = indptr, units, tfs, lengths
        self._norm: np.ndarray | None = None
        self._okapi_idf: np.ndarray | None = None
        self._doc_count: int | None = None
        self._impact_cache: dict[int, tuple[np.ndarray | None, np.ndarray]] = {}
        self._impact_bytes = 0
        self._impact_lock = threading.Lock()

    @classmethod
    def build(cls, token_lists: Sequence[Sequence[str]], ids: Sequence[str], params: BM25Params) -> "BM25Index":
        """Index token_lists (one per unit) under ids."""
        if len(token_lists) != len(ids):
            raise ValueError(f"{len(token_lists)} token lists but {len(ids)} ids")
        vocab: dict[str, int] = {}
        indptr, units, tfs, lengths = postings(token_lists, vocab, 0)
        return cls(vocab, indptr, units, tfs, lengths, ids, params)

    def add(self, token_lists: Sequence[Sequence[str]], ids: Sequence[str]) -> None:
        """Append units; the result equals a full rebuild over all units."""
        if len(token_lists) != len(ids):
            raise ValueError(f"{len(token_lists)} token lists but {len(ids)} ids")
        vocab = dict(self.vocab)
        b_indptr, b_units, b_tfs, b_lengths = postings(token_lists, vocab, len(self))
        indptr, units, tfs = merge(self._indptr, self._units, self._tfs, b_indptr, b_units, b_tfs)
        self.vocab = vocab
        self._indptr, self._units, self._tfs = indptr, units, tfs
        self._lengths = np.concatenate([self._lengths, b_lengths])
        self.ids = self.ids + list(ids)
        self._forget_statistics()

    def extend(self, other: "BM25Index") -> None:
        """Append another index's units after these (a segment); the result equals a rebuild over all units."""
        vocab = dict(self.vocab)
        other_terms = sorted(other.vocab, key=other.vocab.__getitem__)
        remap = np.fromiter((vocab.setdefault(t, len(vocab)) for t in other_terms), dtype=np.int64,
                            count=len(other_terms))  # fmt: skip
        rows = np.repeat(remap, np.diff(other._indptr))
        # Postings of one term stay in unit order (stable sort); terms move to this index's numbering.
        order = np.argsort(rows, kind="stable")
        b_indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(vocab)), out=b_indptr[1:])
        b_units = (np.asarray(other._units)[order] + np.int32(len(self))).astype(np.int32)
        b_tfs = np.asarray(other._tfs)[order]
        self._indptr, self._units, self._tfs = merge(self._indptr, self._units, self._tfs, b_indptr, b_units, b_tfs)
        self.vocab = vocab
        self._lengths = np.concatenate([self._lengths, other._lengths])
        self.ids = self.ids + list(other.ids)
        self._forget_statistics()

    def _forget_statistics(self) -> None:
        """Drop what depends on N, avgdl or df (after units are added); a copy.copy gets its own cache then."""
        self._norm = self._okapi_idf = self._doc_count = None
        self._impact_cache, self._impact_bytes, self._impact_lock = {}, 0, threading.Lock()

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, object]]:
        """Return the index as arrays and a JSON-able header (the segment format of index_store)."""
        terms = sorted(self.vocab, key=self.vocab.__getitem__)
        arrays = {"indptr": self._indptr, "units": self._units, "tfs": self._tfs, "lengths": self._lengths}
        return arrays, {"params": asdict(self.params), "ids": self.ids, "vocab": terms}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], header: dict) -> "BM25Index":
        """Rebuild an index from to_arrays' output."""
        vocab = {term: i for i, term in enumerate(header["vocab"])}
        return cls(vocab, np.asarray(arrays["indptr"], dtype=np.int64), np.asarray(arrays["units"], dtype=np.int32),
                   np.asarray(arrays["tfs"], dtype=np.float32), np.asarray(arrays["lengths"], dtype=np.int32),
                   header["ids"], BM25Params(**header["params"]))  # fmt: skip

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def lengths(self) -> np.ndarray:
        """Return the number of tokens of each unit."""
        return self._lengths

    def document_frequency(self, term: str) -> int:
        """Return how many units contain term."""
        t = self.vocab.get(term)
        return 0 if t is None else int(self._indptr[t + 1] - self._indptr[t])

    def _effective_lengths(self) -> np.ndarray:
        """Return the lengths BM25 normalises with (decoded one-byte lengths when lossy)."""
        if self.params.lossy_lengths:
            return LENGTH_TABLE[encode_lengths(self._lengths)]
        return self._lengths.astype(np.int64)

    def _lucene_norm(self) -> np.ndarray:
        """Return 1 / (k1 * (1 - b + b * dl / avgdl)) per unit in float32, as BM25Similarity caches it."""
        if self._norm is None:
            k1, b, one = np.float32(self.params.k1), np.float32(self.params.b), np.float32(1.0)
            n_docs = int(np.count_nonzero(self._lengths))  # Lucene's docCount skips empty fields
            avgdl = np.float32(float(self._lengths.sum(dtype=np.int64)) / max(n_docs, 1))
            dl = self._effective_lengths().astype(np.float32)
            self._norm = one / (k1 * ((one - b) + b * dl / avgdl))
        return self._norm

    def _okapi_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Return (idf per term with rank_bm25's epsilon floor, k1 * (1 - b + b * dl / avgdl) per unit)."""
        if self._okapi_idf is None or self._norm is None:
            n = len(self)
            df = np.diff(self._indptr).astype(np.float64)
            idf = np.log(n - df + 0.5) - np.log(df + 0.5)
            if len(idf):
                # the floor is a fraction of the mean idf over the whole vocabulary, as in rank_bm25
                idf = np.where(idf < 0, self.params.epsilon * float(idf.mean()), idf)
            avgdl = float(self._lengths.sum(dtype=np.int64)) / max(n, 1)
            dl = self._effective_lengths().astype(np.float64)
            self._okapi_idf = idf
            self._norm = self.params.k1 * (1 - self.params.b + self.params.b * dl / avgdl)
        return self._okapi_idf, self._norm

    def _query_terms(self, query_tokens: Sequence[str]) -> dict[int, int]:
        """Count known query terms, in first-occurrence order."""
        counts: dict[int, int] = {}
        for tok in query_tokens:
            t = self.vocab.get(tok)
            if t is not None:
                counts[t] = counts.get(t, 0) + 1
        return counts

    def _impacts(self, t: int) -> np.ndarray:
        """Return term t's float contribution to each unit of its postings for a query count of 1.

        Lucene: ``w - w / (1 + tf * normInverse)`` in float32; okapi: ``idf * (tf * (k1 + 1) / (tf + norm))`` in
        float64.
        """
        s, e = self._indptr[t], self._indptr[t + 1]
        units, tf = self._units[s:e], self._tfs[s:e]
        if self.params.variant == "okapi":
            idf, norm = self._okapi_state()
            tf64 = tf.astype(np.float64)
            return idf[t] * (tf64 * (self.params.k1 + 1) / (tf64 + norm[units]))
        return self._lucene_contribution(t, 1, units, tf)

    def _term_scores(self, t: int) -> tuple[np.ndarray | None, np.ndarray]:
        """Return (units, float64 contributions) of term t, or (None, a dense per-unit array) for a common term.

        Cached per term (least recently used first out, IMPACT_CACHE_BYTES per index): a query then only adds
        arrays. A term in over a third of the units is kept dense, so adding it is one contiguous pass.
        """
        with self._impact_lock:
            return self._cached_term_scores(t)

    def _cached_term_scores(self, t: int) -> tuple[np.ndarray | None, np.ndarray]:
        cached = self._impact_cache.pop(t, None)
        if cached is None:
            s, e = self._indptr[t], self._indptr[t + 1]
            impacts = self._impacts(t).astype(np.float64)
            if 3 * (e - s) > len(self):
                dense = np.zeros(len(self), dtype=np.float64)
                dense[self._units[s:e]] = impacts
                cached = (None, dense)
            else:
                cached = (self._units[s:e].astype(np.intp), impacts)
            size = cached[1].nbytes + (0 if cached[0] is None else cached[0].nbytes)
            while self._impact_cache and self._impact_bytes + size > IMPACT_CACHE_BYTES:
                old_units, old_values = self._impact_cache.pop(next(iter(self._impact_cache)))
                self._impact_bytes -= old_values.nbytes + (0 if old_units is None else old_units.nbytes)
            self._impact_bytes += size
        self._impact_cache[t] = cached  # most recently used last
        return cached

    def _lucene_contribution(self, t: int, count: int, units: np.ndarray, tf: np.ndarray) -> np.ndarray:
        """Return Lucene BM25Similarity's float32 score of term t (a clause boosted by count) for each posting."""
        df = int(self._indptr[t + 1] - self._indptr[t])
        n_docs = self._n_docs()
        # Lucene: idf in double then cast; a repeated term is one clause boosted by its count
        weight = np.float32(count) * np.float32(math.log(1 + (n_docs - df + 0.5) / (df + 0.5)))
        return weight - weight / (np.float32(1.0) + tf * self._lucene_norm()[units])

    def _n_docs(self) -> int:
        """Return Lucene's docCount (units with at least one token)."""
        if self._doc_count is None:
            self._doc_count = int(np.count_nonzero(self._lengths))
        return self._doc_count

    def _sums(self, terms: dict[int, int]) -> np.ndarray:
        """Return the float64 sum over terms of each unit's contributions, added in query-term order from 0.0.

        Adding a dense array adds 0.0 to the units without the term, which leaves their sums unchanged.
        """
        out = np.zeros(len(self), dtype=np.float64)
        for t, count in terms.items():
            if self._indptr[t] == self._indptr[t + 1]:
                continue
            if count > 1 and self.params.variant != "okapi":
                s, e = self._indptr[t], self._indptr[t + 1]
                out[self._units[s:e]] += self._lucene_contribution(t, count, self._units[s:e], self._tfs[s:e])
                continue
            units, values = self._term_scores(t)
            if count > 1:
                values = count * values
            if units is None:
                out += values
            else:
                out[units] += values
        return out

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Return the float64 BM25 score of every unit; a repeated query term counts each time."""
        sums = self._sums(self._query_terms(query_tokens))
        if self.params.variant == "okapi":
            return sums
        return sums.astype(np.float32).astype(np.float64)

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Return up to k (unit index, score) with score > 0, by score desc then index asc."""
        idx, vals = self.top_k_arrays(query_tokens, k)
        return list(zip(idx.tolist(), vals.tolist(), strict=True))

    def top_k_arrays(self, query_tokens: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return top_k as arrays (unit indexes int64, float64 scores), without Python objects per unit."""
        terms = self._query_terms(query_tokens)
        if not terms or k <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
        sums = self._sums(terms)
        # Lucene's scores are float32: rank the rounded values (rounding can tie units that differ in float64)
        scores = sums if self.params.variant == "okapi" else sums.astype(np.float32)
        idx, vals = top_k_indices(scores, k)
        return idx, vals.astype(np.float64)

    def search(self, query_tokens: Sequence[str], k: int) -> list[Hit]:
        """Return the top k units as Hits."""
        return [Hit(self.ids[i], s) for i, s in self.top_k(query_tokens, k)]

    def save(self, directory: Path) -> None:
        """Write the index to directory atomically (a temp dir renamed into place)."""
        directory = Path(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        try:
            for name, arr in (
                ("indptr", self._indptr),
                ("units", self._units),
                ("tfs", self._tfs),
                ("lengths", self._lengths),
            ):
                np.save(tmp / f"{name}.npy", np.ascontiguousarray(arr))
            terms = sorted(self.vocab, key=self.vocab.__getitem__)
            meta = {"format": _FORMAT, "params": asdict(self.params), "ids": self.ids, "vocab": terms}
            (tmp / "meta.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            # rename(2) cannot replace a non-empty directory: move the old one aside first
            old = None
            if directory.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old.", dir=directory.parent))
                os.replace(directory, old / "index")
            os.replace(tmp, directory)
            if old is not None:
                shutil.rmtree(old)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def load(cls, directory: Path, mmap: bool = True) -> "BM25Index":
        """Load an index written by save, memory-mapping its arrays unless mmap is False."""
        directory = Path(directory)
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != _FORMAT:
            raise ValueError(f"{directory} holds index format {meta.get('format')}, expected {_FORMAT}")
        mode = "r" if mmap else None
        names = ("indptr", "units", "tfs", "lengths")
        arrays = {n: np.load(directory / f"{n}.npy", mmap_mode=mode) for n in names}
        vocab = {term: i for i, term in enumerate(meta["vocab"])}
        return cls(
            vocab,
            arrays["indptr"],
            arrays["units"],
            arrays["tfs"],
            arrays["lengths"],
            meta["ids"],
            BM25Params(**meta["params"]),
        )
