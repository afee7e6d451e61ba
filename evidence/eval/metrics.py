"""Shared answer normalisation, set metrics and ranking metrics (pure functions)."""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import NamedTuple

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def normalize_answer(text: str) -> str:
    """Lowercase, drop ASCII punctuation and the articles a/an/the, collapse whitespace (SQuAD v1.1)."""
    # Same order as the SQuAD script: lower -> punctuation -> articles -> whitespace.
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_prf(prediction: str, reference: str) -> PRF:
    """Return SQuAD bag-of-token precision, recall and F1; no overlap (or an empty side) scores 0."""
    pred_tokens = normalize_answer(prediction).split()
    ref_tokens = normalize_answer(reference).split()
    same = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if same == 0:
        return PRF(0.0, 0.0, 0.0)
    precision = same / len(pred_tokens)
    recall = same / len(ref_tokens)
    return PRF(precision, recall, 2 * precision * recall / (precision + recall))


def prf_from_counts(true_positives: int, predicted: int, relevant: int) -> PRF:
    """Return precision, recall and F1 from counts; a zero denominator gives 0 for that metric."""
    precision = true_positives / predicted if predicted else 0.0
    recall = true_positives / relevant if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def set_prf(predicted: Iterable[Hashable], gold: Iterable[Hashable]) -> PRF:
    """Return set precision, recall and F1.

    Conventions: both sets empty -> (1, 1, 1) (nothing to find, nothing claimed; as QASPER's evidence F1);
    exactly one empty -> (0, 0, 0).
    """
    pred_set, gold_set = set(predicted), set(gold)
    if not pred_set and not gold_set:
        return PRF(1.0, 1.0, 1.0)
    return prf_from_counts(len(pred_set & gold_set), len(pred_set), len(gold_set))


def unique_top_k(ranked_ids: Sequence[str], k: int) -> list[str]:
    """Return the first k distinct ids of a ranking (a repeated id earns nothing the second time)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    seen: dict[str, None] = {}
    for doc_id in ranked_ids:
        if len(seen) == k:
            break
        seen.setdefault(doc_id, None)
    return list(seen)


def ndcg_at_k(ranked_ids: Sequence[str], gains: Mapping[str, float], k: int) -> float:
    """Return nDCG@k with linear gains and a log2(rank + 1) discount (trec_eval ndcg_cut).

    Unjudged documents gain 0. IDCG ranks every judged document by gain (the ideal list over all
    qrels, not over the retrieved ones), truncated at k. No positive gain -> 0.
    """
    dcg = sum(gains.get(doc_id, 0.0) / math.log2(rank + 2) for rank, doc_id in enumerate(unique_top_k(ranked_ids, k)))
    ideal = sorted((g for g in gains.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 2) for rank, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def relevant_ids(gains: Mapping[str, float]) -> set[str]:
    """Return the ids with a positive gain."""
    return {doc_id for doc_id, gain in gains.items() if gain > 0}


def recall_at_k(ranked_ids: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return the share of relevant ids found in the top k; no relevant ids -> 0."""
    if not relevant:
        return 0.0
    return len(set(unique_top_k(ranked_ids, k)) & set(relevant)) / len(set(relevant))


def f1_at_k(ranked_ids: Sequence[str], gains: Mapping[str, float], k: int = 20) -> float:
    """Return F1@k as in JevGPT appendix A.2: relevant = gain > 0, precision denominator fixed at k.

    precision = hits / k even when fewer than k ids are returned; recall = hits / |relevant|;
    so F1 = 2 * hits / (k + |relevant|). No relevant ids, or an empty (failed) ranking -> 0.
    """
    relevant = relevant_ids(gains)
    hits = len(set(unique_top_k(ranked_ids, k)) & relevant)
    return 2 * hits / (k + len(relevant)) if relevant else 0.0


def precision_at_k(ranked_ids: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return hits in the top k divided by k (trec_eval P_k: the denominator is k, not the list length)."""
    return len(set(unique_top_k(ranked_ids, k)) & set(relevant)) / k
