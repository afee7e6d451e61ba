"""QASPER answer F1 and evidence F1, following allenai/qasper-led-baseline's official evaluator.

Matched from `qasper_evaluator.py` (scripts/evaluator.py in the repository):
- answer F1 = SQuAD token F1 (0 when nothing overlaps, including empty vs empty), max over references;
- the answer type of a question is the type of the first reference reaching that max (stable sort);
- evidence F1 = set F1 over paragraph strings, max over references *independently* of the answer max;
  empty prediction vs empty reference evidence (unanswerable) = 1.0;
- reference answers: unanswerable -> "Unanswerable" with no evidence (type "none"); extractive spans
  joined by ", "; else free_form_answer ("abstractive"); else yes_no True/False -> "Yes"/"No" ("boolean");
- a missing prediction scores 0 for both and is left out of the by-type means;
- means over an empty list are 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from evidence.eval.metrics import token_prf

ANSWER_TYPES = ("extractive", "abstractive", "boolean", "none")


class Reference(TypedDict):
    answer: str
    evidence: list[str]
    type: str


def qasper_prediction(outcome: str, short_answer: str) -> str:
    """The answer a run gives QASPER's scorer: its shown short answer; "Unanswerable" (QASPER's own word) when the
    run ended Not found; "" when no short answer was shown (the page's "No short answer found" is no answer)."""
    if outcome == "not_found":
        return "Unanswerable"
    return short_answer if outcome == "short_answer" else ""


def token_f1_score(prediction: str, reference: str) -> float:
    """Return SQuAD token F1 between two answer strings."""
    return token_prf(prediction, reference).f1


def paragraph_f1_score(prediction: Sequence[str], reference: Sequence[str]) -> float:
    """Return set F1 over paragraph strings; both empty -> 1.0, one empty -> 0.0."""
    if not prediction and not reference:
        return 1.0
    same = len(set(prediction) & set(reference))
    if same == 0:
        return 0.0
    # Divides by list lengths, not set sizes, exactly as the official script (duplicates cost precision).
    precision = same / len(prediction)
    recall = same / len(reference)
    return 2 * precision * recall / (precision + recall)


def reference_from_answer(answer: Mapping[str, Any], text_evidence_only: bool = True) -> Reference:
    """Map one annotator's `answer` object to its reference answer text, evidence and type."""
    if answer["unanswerable"]:
        return {"answer": "Unanswerable", "evidence": [], "type": "none"}
    if answer["extractive_spans"]:
        text, kind = ", ".join(answer["extractive_spans"]), "extractive"
    elif answer["free_form_answer"]:
        text, kind = answer["free_form_answer"], "abstractive"
    elif answer["yes_no"] is not None:
        text, kind = ("Yes" if answer["yes_no"] else "No"), "boolean"
    else:
        raise ValueError(f"annotation has no answer: {dict(answer)!r}")
    evidence = list(answer["evidence"])
    if text_evidence_only:
        # Figures and tables are cited as "FLOAT SELECTED: ..."; we can only cite text spans.
        evidence = [paragraph for paragraph in evidence if "FLOAT SELECTED" not in paragraph]
    return {"answer": text, "evidence": evidence, "type": kind}


def get_answers_and_evidence(data: Mapping[str, Any], text_evidence_only: bool = True) -> dict[str, list[Reference]]:
    """Return {question_id: references} for a QASPER file ({paper_id: paper})."""
    return {
        qa["question_id"]: [reference_from_answer(a["answer"], text_evidence_only) for a in qa["answers"]]
        for paper in data.values()
        for qa in paper["qas"]
    }


def qasper_question_scores(
    prediction: str | None, predicted_evidence: Sequence[str], references: Sequence[Reference]
) -> dict[str, Any]:
    """Score one question: best answer F1 (and its reference type) and best evidence F1."""
    if prediction is None:
        return {"answer_f1": 0.0, "evidence_f1": 0.0, "answer_type": None, "missing": True}
    if not references:
        raise ValueError("a question needs at least one reference")
    answer_scores = [token_f1_score(prediction, ref["answer"]) for ref in references]
    best = max(range(len(references)), key=answer_scores.__getitem__)  # first of the ties, as sorted() does
    evidence_f1 = max(paragraph_f1_score(predicted_evidence, ref["evidence"]) for ref in references)
    return {
        "answer_f1": answer_scores[best],
        "evidence_f1": evidence_f1,
        "answer_type": references[best]["type"],
        "missing": False,
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def qasper_summary(per_question: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Average per-question scores into answer_f1, evidence_f1 and answer_f1_by_type."""
    by_type: dict[str, list[float]] = {kind: [] for kind in ANSWER_TYPES}
    for scores in per_question:
        if not scores["missing"]:
            by_type[scores["answer_type"]].append(scores["answer_f1"])
    return {
        "answer_f1": _mean([s["answer_f1"] for s in per_question]),
        "evidence_f1": _mean([s["evidence_f1"] for s in per_question]),
        "answer_f1_by_type": {kind: _mean(values) for kind, values in by_type.items()},
        "questions": len(per_question),
        "missing": sum(1 for s in per_question if s["missing"]),
    }
