"""Postings in CSR layout (term -> units with raw term frequencies): built from token lists in chunks, and two
layouts merged term by term (an append to the index gives the same layout as a rebuild)."""

from collections.abc import Sequence

import numpy as np

_POSTINGS_CHUNK_TOKENS = 4_000_000  # tokens sorted at a time while building postings (bounds the temporaries)


def postings(
    token_lists: Sequence[Sequence[str]], vocab: dict[str, int], first_unit: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (indptr, units, tfs, lengths) for token_lists, growing vocab in first-occurrence order.

    Units are taken in chunks of about _POSTINGS_CHUNK_TOKENS tokens: each chunk's (term, unit) keys are sorted
    and counted into term frequencies, then every term's postings are laid out chunk after chunk (unit order).
    """
    lengths = np.fromiter((len(tokens) for tokens in token_lists), dtype=np.int32, count=len(token_lists))
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (term of each posting, units, tfs)
    start = 0
    while start < len(token_lists):
        end, count = start, 0
        while end < len(token_lists) and (end == start or count + lengths[end] <= _POSTINGS_CHUNK_TOKENS):
            count += int(lengths[end])
            end += 1
        term_ids = [vocab.setdefault(t, len(vocab)) for tokens in token_lists[start:end] for t in tokens]
        rows = np.fromiter(term_ids, dtype=np.int64, count=len(term_ids))
        del term_ids
        n_units = end - start
        rows *= n_units
        rows += np.repeat(np.arange(n_units, dtype=np.int64), lengths[start:end])
        keys, tfs = np.unique(rows, return_counts=True)  # sorted: (term, unit) pairs, repeats counted
        del rows
        terms = keys // n_units
        units = (keys - terms * n_units + (first_unit + start)).astype(np.int32)
        pieces.append((terms.astype(np.int32), units, tfs.astype(np.float32)))
        del keys
        start = end
    counts = np.zeros(len(vocab), dtype=np.int64)
    piece_counts = [np.bincount(terms, minlength=len(vocab)) for terms, _, _ in pieces]
    for c in piece_counts:
        counts += c
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    if len(pieces) == 1:
        return indptr, pieces[0][1], pieces[0][2], lengths
    units = np.empty(int(indptr[-1]), dtype=np.int32)
    tfs = np.empty(int(indptr[-1]), dtype=np.float32)
    filled = indptr[:-1].copy()  # where each term's next postings go
    for (terms, piece_units, piece_tfs), c in zip(pieces, piece_counts, strict=True):
        piece_start = np.zeros(len(vocab), dtype=np.int64)
        np.cumsum(c[:-1], out=piece_start[1:])
        dest = (filled - piece_start)[terms] + np.arange(len(terms))
        units[dest], tfs[dest] = piece_units, piece_tfs
        filled += c
    return indptr, units, tfs, lengths


def merge(
    a_indptr: np.ndarray,
    a_units: np.ndarray,
    a_tfs: np.ndarray,
    b_indptr: np.ndarray,
    b_units: np.ndarray,
    b_tfs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Append postings b after postings a term by term (b may know more terms than a)."""
    n_terms = len(b_indptr) - 1
    a_counts = np.zeros(n_terms, dtype=np.int64)
    a_counts[: len(a_indptr) - 1] = np.diff(a_indptr)
    b_counts = np.diff(b_indptr)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(a_counts + b_counts, out=indptr[1:])
    a_terms = np.repeat(np.arange(n_terms), a_counts)
    b_terms = np.repeat(np.arange(n_terms), b_counts)
    a_dest = indptr[a_terms] + (np.arange(len(a_units)) - a_indptr[a_terms])
    b_dest = indptr[b_terms] + a_counts[b_terms] + (np.arange(len(b_units)) - b_indptr[b_terms])
    units = np.empty(len(a_units) + len(b_units), dtype=np.int32)
    tfs = np.empty(len(units), dtype=np.float32)
    units[a_dest], units[b_dest] = a_units, b_units
    tfs[a_dest], tfs[b_dest] = a_tfs, b_tfs
    return indptr, units, tfs
