"""The papers benchmark: a user's own gold questions over one of their collections, asked as the Ask page asks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..models import Collection, Run
from ..stored_answer import StoredAnswer
from .benchmarks import EvalQuestion, cited_spans
from .metrics_papers import QuestionScore, locate_quote, papers_summary, score_question


class Papers:
    name = "papers"
    headline = ("evidence_hit", "answer_strict", "confident_wrong", "auroc", "abstain_correct", "false_abstain", "ece")
    per_question = ("evidence_hit", "answer_strict", "answer_correct", "confidence")
    answer_judged = True

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool:
        strict = metrics.get("answer_strict", metrics.get("answer_correct"))
        return bool(strict) if metrics.get("answerable") else bool(metrics.get("abstained"))

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
        return papers_summary(score_from_dict(item) for item in items)

    def __init__(self, questions: Path, collection: str) -> None:
        self.path, self.collection_name = questions, collection
        self.raw = json.loads(questions.read_text(encoding="utf-8"))
        if not isinstance(self.raw, list):
            raise ValueError(f"{questions} must hold a JSON list of questions (qid, question, answers, evidence)")

    def collection(self, owner: Any) -> Collection:
        collection = Collection.objects.filter(owner=owner, name=self.collection_name).order_by("pk").first()
        if collection is None:
            raise ValueError(f"{owner} has no collection named {self.collection_name!r}: ingest the papers first")
        return collection

    def questions(self) -> list[EvalQuestion]:
        return [
            EvalQuestion(
                str(item["qid"]),
                str(item["question"]),
                "qa",
                (),  # never scoped: the whole collection, as a user asks
                {
                    "answers": [str(a) for a in item.get("answers") or []],
                    "type": str(item.get("type") or ""),
                    "evidence": [(str(e["docid"]), str(e["quote"])) for e in item.get("evidence") or []],
                },
            )
            for item in self.raw
        ]

    def run_config(self, question: EvalQuestion) -> dict[str, Any]:
        """Nothing beyond what the Ask page sets: the benchmark chooses no reader."""
        return {}

    def reference(self, question: EvalQuestion) -> str:
        return " OR ".join(question.gold["answers"])

    def score(self, question: EvalQuestion, run: Run) -> dict[str, Any]:
        gold = question.gold
        texts = dict(
            run.collection.documents.filter(docid__in={d for d, _ in gold["evidence"]}).values_list("docid", "text")
        )
        ranges, found = [], 0
        for docid, quote in gold["evidence"]:
            located = locate_quote(texts.get(docid, ""), quote)
            found += bool(located)
            ranges.extend((docid, start, end) for start, end in located)
        cited = [(s.document.docid, s.start, s.end) for s in cited_spans(run)]
        stored = StoredAnswer.of(run)
        result = score_question(
            stored.exact_answer,
            stored.confidence or 0.0,
            cited,
            gold["answers"],
            ranges,
            found,
            len(gold["evidence"]),
            gold["type"],
            candidate=stored.candidate or None,
        )
        return {**score_dict(result), "relevant": sorted({d for d, _ in gold["evidence"]})}


def score_dict(score: QuestionScore) -> dict[str, Any]:
    """Return a question score as the JSON stored per evaluation item."""
    return {
        "answerable": score.answerable,
        "evidence_hit": float(score.evidence_hit),
        "evidence_precision": score.evidence_precision,
        "answer_correct": float(score.answer_correct),
        "answer_strict": float(score.answer_strict),
        "withheld": score.withheld,
        "candidate_strict": float(score.candidate_strict),
        "abstained": score.abstained,
        "confidence": score.confidence,
        "gold_found": score.gold_found,
        "gold_total": score.gold_total,
    }


def score_from_dict(item: dict[str, Any]) -> QuestionScore:
    """Rebuild a question score from an evaluation item's metrics."""
    return QuestionScore(
        answerable=bool(item["answerable"]),
        evidence_hit=bool(item["evidence_hit"]),
        evidence_precision=item.get("evidence_precision"),
        answer_correct=bool(item["answer_correct"]),
        answer_strict=bool(item.get("answer_strict", 0.0)),
        withheld=bool(item.get("withheld", False)),
        candidate_strict=bool(item.get("candidate_strict", item.get("answer_strict", 0.0))),
        abstained=bool(item["abstained"]),
        confidence=float(item["confidence"]),
        gold_found=int(item["gold_found"]),
        gold_total=int(item["gold_total"]),
    )
