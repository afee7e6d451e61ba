"""SciFact sentence-level rationale selection ("selection only"), as allenai/scifact's evaluator.

Matched from verisci/evaluate/lib/metrics.py (count_rationale_sents, update_counts_sentence,
"sentence_selection"):
- counts are summed over all claims, then precision/recall/F1 are computed once (micro average);
- relevant = every gold rationale sentence of the claim, over all its evidence documents;
- retrieved = every predicted (doc_id, sentence) pair, in any document (a sentence in a non-evidence
  document is a false positive);
- a predicted sentence is correct only if it belongs to a gold rationale of that document AND every
  other sentence of that rationale is predicted too (rationales are minimal sufficient sets);
- the label is ignored (no NEI filtering: our predictions carry no label).
Deviation: the official script divides by zero on empty counts; we return 0 for that metric.
`require_full_rationale=False` gives the lenient variant (any gold rationale sentence counts).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evidence.eval.metrics import PRF, prf_from_counts


def gold_rationales(evidence: Mapping[Any, Sequence[Mapping[str, Any]]]) -> dict[str, list[frozenset[int]]]:
    """Return {doc_id: [rationale sentence sets]} from a claim's `evidence` field."""
    return {str(doc): [frozenset(entry["sentences"]) for entry in entries] for doc, entries in evidence.items()}


def claim_rationale_counts(
    predicted: Iterable[tuple[Any, int]],
    evidence: Mapping[Any, Sequence[Mapping[str, Any]]],
    require_full_rationale: bool = True,
) -> tuple[int, int, int]:
    """Return (correct, retrieved, relevant) sentence counts for one claim."""
    by_doc: dict[str, set[int]] = {}
    for doc_id, sentence in predicted:
        by_doc.setdefault(str(doc_id), set()).add(int(sentence))
    gold = gold_rationales(evidence)
    relevant = sum(len(rationale) for rationales in gold.values() for rationale in rationales)
    retrieved = sum(len(sentences) for sentences in by_doc.values())
    correct = 0
    for doc_id, sentences in by_doc.items():
        for sentence in sentences:
            containing = [r for r in gold.get(doc_id, []) if sentence in r]
            if containing and (not require_full_rationale or containing[0] <= sentences):
                correct += 1
    return correct, retrieved, relevant


def rationale_selection_prf(
    predictions: Sequence[Iterable[tuple[Any, int]]],
    evidences: Sequence[Mapping[Any, Sequence[Mapping[str, Any]]]],
    require_full_rationale: bool = True,
) -> PRF:
    """Return micro-averaged sentence selection precision, recall and F1 over claims (paired lists)."""
    if len(predictions) != len(evidences):
        raise ValueError("predictions and evidences must be paired by claim")
    correct = retrieved = relevant = 0
    for predicted, evidence in zip(predictions, evidences, strict=True):
        c, p, r = claim_rationale_counts(predicted, evidence, require_full_rationale)
        correct, retrieved, relevant = correct + c, retrieved + p, relevant + r
    return prf_from_counts(correct, retrieved, relevant)
