"""Benchmarks: load a dataset's questions, build its collection once, and score a finished run."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..ingest import parse_file, store_documents, text_sha256
from ..models import Collection, Region, Run
from ..retrieval import index_store
from ..run_state import StoredAnswer
from .metrics import f1_at_k, ndcg_at_k, prf_from_counts, recall_at_k
from .metrics_hotpot import gold_supporting_facts, hotpot_question_scores, hotpot_summary
from .metrics_qasper import qasper_prediction, qasper_question_scores, qasper_summary, reference_from_answer
from .metrics_scifact import claim_rationale_counts


@dataclass(frozen=True)
class EvalQuestion:
    qid: str
    question: str
    task: str = "qa"
    scope: tuple[str, ...] = ()
    gold: dict[str, Any] = field(default_factory=dict)


def file_key(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


COMPLETE = "Benchmark collection: completely ingested and indexed."


def ensure_collection(
    owner: Any, name: str, build: Any, analyzer: str = "english", bm25_params: dict[str, Any] | None = None
) -> Collection:
    """Return the benchmark's collection, ingesting it until complete (an interrupted ingest is finished later)."""
    defaults: dict[str, Any] = {"analyzer": analyzer}
    if bm25_params:
        defaults["bm25_params"] = bm25_params
    collection, _ = Collection.objects.get_or_create(owner=owner, name=name, defaults=defaults)
    if collection.description != COMPLETE:
        from tqdm import tqdm

        from ..encode import get_embedder

        for source_name, parsed in build():
            # Building SciFact takes minutes: show documents stored, passages embedded and an ETA while it runs.
            with tqdm(total=len(parsed), unit="doc", desc=f"building {name[:40]}", file=sys.stderr) as bar:
                passages = 0

                def progress(documents: int, embedded: int, bar: Any = bar) -> None:
                    nonlocal passages
                    passages += embedded
                    bar.set_postfix(passages_embedded=passages, refresh=False)
                    bar.update(documents)

                # Documents stored by an earlier, interrupted attempt are skipped as duplicates.
                store_documents(collection, source_name, parsed, get_embedder().embed, progress)
        # Index every document the index lacks (add_documents skips the ones it has).
        index_store.add_documents(collection.pk, list(collection.documents.values_list("pk", flat=True)))
        collection.description = COMPLETE
        collection.save(update_fields=["description"])
    return collection


def ranking_of(run: Run) -> list[str]:
    """Return the run's document ranking: its answer's ranking, else the first search's cached ranking."""
    ranking = StoredAnswer.of(run).ranked_docids()
    if ranking:
        return [docid for docid, _ in ranking]
    first = run.searches.order_by("id").first()
    return [row[0] for row in first.ranking] if first else []


def cited_spans(run: Run, delivered: bool = False) -> list[Any]:
    """Return the spans an answer rests on: the cited ones, or every delivered one."""
    if delivered:
        return list(run.spans.filter(delivered=True).select_related("document"))
    return [citation.span for citation in run.citations.select_related("span__document")]


# ------------------------------------------------------------------ SciFact


def rounded(data: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (round(v, 4) if isinstance(v, float) else rounded(v) if isinstance(v, dict) else v) for k, v in data.items()
    }


class SciFact:
    name = "scifact"
    headline = ("ndcg@10", "recall@100", "rationale_f1")
    per_question = ("ndcg@10", "ndcg@20", "recall@100", "recall@1000", "ranking_ndcg@20", "f1@20")
    answer_judged = False  # a claim has no short answer for an LLM judge to grade
    users_collection = False

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool:
        return metrics.get("ndcg@10", 0.0) > 0.0

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
        summary = {key: round(float(np.mean([item[key] for item in items])), 4) for key in SciFact.per_question}
        correct_, retrieved, relevant = (sum(item["rationale_counts"][i] for item in items) for i in range(3))
        prf = prf_from_counts(correct_, retrieved, relevant)
        summary.update(
            {
                "rationale_precision": round(prf.precision, 4),
                "rationale_recall": round(prf.recall, 4),
                "rationale_f1": round(prf.f1, 4),
            }
        )
        return summary

    def __init__(self, corpus: Path, claims: Path) -> None:
        self.corpus, self.claims = corpus, claims

    def collection(self, owner: Any) -> Collection:
        def build():
            yield self.corpus.name, parse_file(self.corpus.name, self.corpus.read_bytes())

        # Abstracts are short: Lucene defaults at both levels (the long-document k1=25 setting hurts here).
        params = {"document": {"k1": 0.9, "b": 0.4}, "passage": {"k1": 0.9, "b": 0.4}}
        return ensure_collection(owner, f"bench:scifact:{file_key(self.corpus)}", build, bm25_params=params)

    def questions(self) -> list[EvalQuestion]:
        raw = json.loads(self.claims.read_text(encoding="utf-8"))
        out = []
        for item in sorted(raw, key=lambda c: int(c["id"])):
            gold = {"cited": [str(d) for d in item.get("cited_doc_ids") or []], "evidence": item.get("evidence") or {}}
            out.append(EvalQuestion(str(item["id"]), str(item["claim"]), "ranking", (), gold))
        return out

    def run_config(self, question: EvalQuestion) -> dict[str, Any]:
        """Abstracts: regions of 3 sentences moving by 1, no adaptive reading (chosen on the judge's fit split)."""
        from ..judge import SHORT_DOCUMENT_OPTIONS

        return {"localize": dict(SHORT_DOCUMENT_OPTIONS)}

    def score(self, question: EvalQuestion, run: Run) -> dict[str, Any]:
        ranking = ranking_of(run)
        cited = set(question.gold["cited"])
        gains = dict.fromkeys(cited, 1.0)
        metrics: dict[str, Any] = {
            "ndcg@10": ndcg_at_k(ranking, gains, 10),
            "ndcg@20": ndcg_at_k(ranking, gains, 20),
            "recall@100": recall_at_k(ranking, cited, 100),
            "recall@1000": recall_at_k(ranking, cited, 1000),
            "relevant": sorted(cited),
        }
        # The ranking task (JevGPT A.2): gains 3 for abstracts with rationale evidence, 1 for the claim's other
        # cited abstracts, 0 otherwise; F1@20 over a fixed denominator of 20.
        graded = {docid: 3.0 if docid in question.gold["evidence"] else 1.0 for docid in cited}
        graded.update({str(docid): 3.0 for docid in question.gold["evidence"]})
        metrics["ranking_ndcg@20"] = ndcg_at_k(ranking, graded, 20)
        metrics["f1@20"] = f1_at_k(ranking, graded, 20)
        predicted = set()
        for span in cited_spans(run, delivered=True):
            region = Region.objects.filter(document=span.document, kind="sentence", start=span.start).first()
            if region is not None:
                predicted.add((span.document.docid, region.ordinal))
        metrics["rationale_counts"] = list(claim_rationale_counts(sorted(predicted), question.gold["evidence"]))
        return metrics


# ------------------------------------------------------------------ QASPER


class Qasper:
    name = "qasper"
    headline = ("answer_f1", "evidence_f1")
    per_question = ("answer_f1", "evidence_f1")
    answer_judged = True
    users_collection = False

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool:
        return metrics.get("answer_f1", 0.0) >= 0.5

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
        per_question = [{k: item[k] for k in ("answer_f1", "evidence_f1", "answer_type", "missing")} for item in items]
        return rounded(qasper_summary(per_question))

    def __init__(self, data: Path) -> None:
        self.data = data
        self.raw = json.loads(data.read_text(encoding="utf-8"))

    def collection(self, owner: Any) -> Collection:
        def build():
            yield self.data.name, parse_file(self.data.name, self.data.read_bytes())

        return ensure_collection(owner, f"bench:qasper:{file_key(self.data)}", build)

    def questions(self) -> list[EvalQuestion]:
        # Keyed by question id as the official evaluator keys its gold answers (a dict): a repeated id keeps its
        # last entry, in the place of its first (the dev sample repeats one question with other annotations).
        by_id: dict[str, EvalQuestion] = {}
        for paper_id, paper in self.raw.items():
            for qa in paper.get("qas") or []:
                qid = str(qa["question_id"])
                references = [reference_from_answer(a["answer"]) for a in qa["answers"]]
                by_id[qid] = EvalQuestion(qid, str(qa["question"]), "qa", (str(paper_id),), {"references": references})
        return list(by_id.values())

    def run_config(self, question: EvalQuestion) -> dict[str, Any]:
        """Papers: the dual system reads the scoped paper's paragraphs (judge/paper.py) and cites one or two. QASPER's
        scorer has no "no answer shown": the best short answer is always given, with its confidence."""
        return {"answer_spans": 2, "answer_threshold": 0.0}

    def reference(self, question: EvalQuestion) -> str:
        """Return the reference answers for an answer judge (annotators' answers, 'or'-joined)."""
        answers = list(dict.fromkeys(ref["answer"] for ref in question.gold["references"]))
        return " OR ".join(answers)

    def score(self, question: EvalQuestion, run: Run) -> dict[str, Any]:
        stored = StoredAnswer.of(run)
        answer = qasper_prediction(stored.outcome, stored.short_answer)
        paragraphs = evidence_paragraphs(cited_spans(run))
        scores = qasper_question_scores(answer, paragraphs, question.gold["references"])
        return {**scores, "relevant": list(question.scope)}


def evidence_paragraphs(spans: Sequence[Any]) -> list[str]:
    """Map spans to the text of the paragraph regions containing them (QASPER evidence is paragraphs)."""
    out: list[str] = []
    for span in spans:
        region = (
            Region.objects.filter(document=span.document, kind="paragraph", start__lte=span.start, end__gte=span.end)
            .order_by("start")
            .first()
        )
        if region is not None:
            text = span.document.text[region.start : region.end]
            if text not in out:
                out.append(text)
    return out


# ------------------------------------------------------------------ HotpotQA


HOTPOT_KEYS = {f"{prefix}{k}" for prefix in ("", "sp_", "joint_") for k in ("em", "f1", "precision", "recall")}


class HotpotQA:
    name = "hotpotqa"
    headline = ("answer_em", "answer_f1", "sp_f1")
    per_question = ("em", "f1", "sp_f1")
    answer_judged = True
    users_collection = False

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool:
        return metrics.get("f1", 0.0) >= 0.5

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
        keys = [k for k in items[0] if k in HOTPOT_KEYS]
        summary = rounded(hotpot_summary([{k: item[k] for k in keys} for item in items]))
        summary["answer_em"], summary["answer_f1"] = summary.get("em"), summary.get("f1")
        return summary

    def __init__(self, data: Path) -> None:
        self.data = data
        self.raw = json.loads(data.read_text(encoding="utf-8"))
        self.stored_docid: dict[str, str] = {}

    def _docs(self):
        from .hotpotqa import load_hotpotqa

        return load_hotpotqa(self.data)

    def collection(self, owner: Any) -> Collection:
        docs, _ = self._docs()
        collection = ensure_collection(owner, f"bench:hotpotqa:{file_key(self.data)}", lambda: [(self.data.name, docs)])
        # A paragraph shared by two questions is stored once: each question's scope points at the stored copy.
        by_sha = dict(collection.documents.values_list("sha256", "docid"))
        self.stored_docid = {doc.docid: by_sha.get(text_sha256(doc.text), doc.docid) for doc in docs}
        return collection

    def questions(self) -> list[EvalQuestion]:
        _, questions = self._docs()
        return [
            EvalQuestion(q.id, q.text, "qa", tuple(self.stored_docid.get(d, d) for d in q.docids), {"index": i})
            for i, q in enumerate(questions)
        ]

    def run_config(self, question: EvalQuestion) -> dict[str, Any]:
        """Multi-hop questions: the judge's heads fitted without this question (the question's shape chooses the
        pair reader, as it does for anyone's question)."""
        heads = {"sentence": "multihop", "unit": "multihop_unit", **held_out_heads("hotpotqa", question.qid)}
        # HotpotQA's exact match has no "no answer shown": the best short answer is always given.
        return {"judge_heads": heads, "answer_threshold": 0.0}

    def reference(self, question: EvalQuestion) -> str:
        return str(self.raw[question.gold["index"]]["answer"])

    def score(self, question: EvalQuestion, run: Run) -> dict[str, Any]:
        example = self.raw[question.gold["index"]]
        facts = []
        for span in cited_spans(run):
            region = Region.objects.filter(document=span.document, kind="sentence", start=span.start).first()
            if region is not None:
                facts.append((span.document.title, _raw_sentence_index(example, span.document.title, region.ordinal)))
        scores = hotpot_question_scores(
            StoredAnswer.of(run).exact_answer, facts, str(example["answer"]), gold_supporting_facts(example)
        )
        return {**scores, "relevant": list(question.scope)}


def _raw_sentence_index(example: dict[str, Any], title: str, kept_index: int) -> int:
    """Map a stored sentence ordinal back to HotpotQA's sent_id (blank sentences were not stored)."""
    for t, sentences in zip(example["context"]["title"], example["context"]["sentences"], strict=True):
        if t == title:
            kept = [i for i, s in enumerate(sentences) if s.strip()]
            return kept[kept_index] if kept_index < len(kept) else kept_index
    return kept_index


def held_out_heads(benchmark: str, key: str) -> dict[str, str]:
    """Return the judge heads fitted without this paper or question (none when no fold heads exist)."""
    from .folds import heads_for

    return heads_for(benchmark, key)
