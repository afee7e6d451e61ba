"""HotpotQA answer, supporting-fact and joint metrics, following hotpotqa/hotpot's hotpot_evaluate_v1.py.

Matched from the official script:
- EM and F1 on SQuAD-normalised answers; if either side normalises to "yes", "no" or "noanswer" and
  the two differ, F1/precision/recall are 0 (no partial credit for "yes" vs "yes it is");
- supporting facts are a set of (title, sent_id) pairs: precision/recall 0 when their denominator is 0,
  F1 0 when precision + recall is 0, EM 1 when there is no false positive and no false negative;
- joint precision = answer precision x sp precision, joint recall likewise, joint F1 from those two,
  joint EM = answer EM x sp EM;
- the summary divides by the number of gold questions; a missing prediction adds 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evidence.eval.metrics import normalize_answer, prf_from_counts, token_prf

_SPECIAL = frozenset({"yes", "no", "noanswer"})


def exact_match(prediction: str, gold: str) -> float:
    """Return 1.0 when the normalised strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def answer_scores(prediction: str, gold: str) -> dict[str, float]:
    """Return em, f1, precision and recall of one answer."""
    pred_norm, gold_norm = normalize_answer(prediction), normalize_answer(gold)
    em = float(pred_norm == gold_norm)
    if (pred_norm in _SPECIAL or gold_norm in _SPECIAL) and pred_norm != gold_norm:
        return {"em": em, "f1": 0.0, "precision": 0.0, "recall": 0.0}
    prf = token_prf(prediction, gold)
    return {"em": em, "f1": prf.f1, "precision": prf.precision, "recall": prf.recall}


def supporting_fact_scores(predicted: Iterable[Sequence[Any]], gold: Iterable[Sequence[Any]]) -> dict[str, float]:
    """Return em, f1, precision and recall over (title, sent_id) pairs."""
    pred_set = {tuple(pair) for pair in predicted}
    gold_set = {tuple(pair) for pair in gold}
    true_pos = len(pred_set & gold_set)
    prf = prf_from_counts(true_pos, len(pred_set), len(gold_set))
    em = float(true_pos == len(pred_set) == len(gold_set))
    return {"em": em, "f1": prf.f1, "precision": prf.precision, "recall": prf.recall}


def gold_supporting_facts(example: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Return (title, sent_id) pairs from either the original list layout or the HF dict layout."""
    facts = example["supporting_facts"]
    if isinstance(facts, Mapping):
        return list(zip(facts["title"], facts["sent_id"], strict=True))
    return [(title, sent_id) for title, sent_id in facts]


def hotpot_question_scores(
    prediction: str | None,
    predicted_facts: Iterable[Sequence[Any]] | None,
    gold_answer: str,
    gold_facts: Iterable[Sequence[Any]],
) -> dict[str, float]:
    """Score one question; a None answer or facts list counts as missing (0, and no joint score)."""
    keys = ("em", "f1", "precision", "recall")
    scores = dict.fromkeys([*keys, *(f"sp_{k}" for k in keys), *(f"joint_{k}" for k in keys)], 0.0)
    if prediction is not None:
        scores.update(answer_scores(prediction, gold_answer))
    if predicted_facts is not None:
        scores.update({f"sp_{k}": v for k, v in supporting_fact_scores(predicted_facts, gold_facts).items()})
    if prediction is not None and predicted_facts is not None:
        joint_p = scores["precision"] * scores["sp_precision"]
        joint_r = scores["recall"] * scores["sp_recall"]
        scores["joint_precision"], scores["joint_recall"] = joint_p, joint_r
        scores["joint_f1"] = 2 * joint_p * joint_r / (joint_p + joint_r) if joint_p + joint_r > 0 else 0.0
        scores["joint_em"] = scores["em"] * scores["sp_em"]
    return scores


def hotpot_summary(per_question: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Average each metric over all questions."""
    if not per_question:
        return {}
    return {key: sum(q[key] for q in per_question) / len(per_question) for key in per_question[0]}
