"""The papers benchmark: a user's own gold questions over one of their collections, asked as the Ask page asks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..models import Collection, Run
from ..run_state import StoredAnswer
from .benchmarks import EvalQuestion, cited_spans
from .metrics_papers import QuestionScore, locate_quote, papers_summary, score_question
from .question_sets import digest


class Papers:
    name = "papers"
    headline = ("evidence_hit", "answer_strict", "confident_wrong", "auroc", "abstain_correct", "false_abstain", "ece")
    per_question = ("evidence_hit", "answer_strict", "answer_correct", "confidence")
    answer_judged = True
    users_collection = True  # a user's own collection: evaluated as its owner

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool:
        strict = metrics.get("answer_strict", metrics.get("answer_correct"))
        return bool(strict) if metrics.get("answerable") else bool(metrics.get("abstained"))

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
        return papers_summary(score_from_dict(item) for item in items)

    def __init__(self, questions: Path | list[dict[str, Any]], collection: str, scoped: bool = False) -> None:
        """Ask `questions` (a realqa JSON file, or its items as read_question_set returns them) over a collection;
        `scoped`: each about its own paper only (the gold evidence's, or for an unanswerable question the paper of
        another question with the same paper title), as "Ask about this document" asks."""
        self.collection_name = collection
        self.scoped = scoped
        self.path = questions if isinstance(questions, Path) else None
        if isinstance(questions, Path):
            self.raw = json.loads(questions.read_text(encoding="utf-8"))
            if not isinstance(self.raw, list):
                raise ValueError(f"{questions} must hold a JSON list of questions (qid, question, answers, evidence)")
        else:
            self.raw = list(questions)
        # Another question set over the same collection is another evaluation (see runner.evaluation_key).
        self.data_key = f"{collection}:{digest(self.raw)}" + (":scoped" if scoped else "")

    def collection(self, owner: Any) -> Collection:
        collection = Collection.objects.filter(owner=owner, name=self.collection_name).order_by("pk").first()
        if collection is None:
            raise ValueError(f"{owner} has no collection named {self.collection_name!r}: ingest the papers first")
        return collection

    def paper_of(self, item: dict[str, Any]) -> tuple[str, ...]:
        """The document a question is about, when the evaluation is scoped (else (): the whole collection)."""
        if not self.scoped:
            return ()
        by_title = {q.get("paper_title"): q["evidence"][0]["docid"] for q in self.raw if q.get("evidence")}
        docid = item["evidence"][0]["docid"] if item.get("evidence") else by_title.get(item.get("paper_title"))
        return (str(docid),) if docid else ()

    def questions(self) -> list[EvalQuestion]:
        return [
            EvalQuestion(
                str(item["qid"]),
                str(item["question"]),
                "qa",
                self.paper_of(item),  # the whole collection, as a user asks, unless scoped
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
        ranges, found = [], 0
        for docid, quote in gold["evidence"]:
            located = [
                (name, start, end)
                for name, text in texts_for(run.collection, docid, quote)
                for start, end in locate_quote(text, quote)
            ]
            found += bool(located)
            ranges.extend(located)
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
        relevant = {d for d, _ in gold["evidence"] if d} | {docid for docid, _, _ in ranges}
        return {**score_dict(result), "relevant": sorted(relevant)}


def texts_for(collection: Collection, docid: str, quote: str) -> list[tuple[str, str]]:
    """(docid, text) of the papers a gold quote may be in: its own, or with no docid (a CSV's quotes) every paper
    holding the quote's longest word (digits left out: a digit may be stored raised or lowered)."""
    documents = collection.documents.all()
    if docid:
        return list(documents.filter(docid=docid).values_list("docid", "text"))
    words = sorted((w for w in quote.split() if not any(c.isdigit() for c in w)), key=len, reverse=True)
    if words:
        documents = documents.filter(text__contains=words[0])
    return list(documents.values_list("docid", "text"))


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
