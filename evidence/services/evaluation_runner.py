"""The evaluation runner: every question through the real research loop, resumable, with a spending cap."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import timezone

from ..eval import (
    STAGES,
    AnswerJudge,
    Benchmark,
    EvalQuestion,
    EvaluationSettings,
    agreement,
    failure_stage,
    funnel_recall,
)
from ..ingest import prepare_all, readiness
from ..models import Document, Evaluation, EvaluationItem, Run
from ..run_state import StoredAnswer
from . import runs


def evaluation_key(benchmark: str, data_key: str, system: str, config: dict[str, Any]) -> str:
    blob = json.dumps([benchmark, data_key, system, config], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def key_of(bench: Benchmark, collection_name: str, system: str, config: dict[str, Any]) -> str:
    """An evaluation's key: its benchmark, its data (a question set's own key, else the collection), system, config."""
    return evaluation_key(bench.name, getattr(bench, "data_key", collection_name), system, config)


def run_question(evaluation: Evaluation, bench: Benchmark, question: EvalQuestion) -> dict[str, Any]:
    """Ask one question with the evaluation's system; return its metrics with cost, time and funnel."""
    settings_ = EvaluationSettings.of(evaluation.config)
    config = dict(settings_.run)  # the evaluation's own settings (budget, answer judge) stay out of the run's
    if evaluation.system == "dual":
        config.update(bench.run_config(question))
    if question.scope:
        config["scope_docids"] = list(question.scope)
    run, _ = runs.create_run(
        evaluation.owner, evaluation.collection, question.question, system=evaluation.system,
        task=question.task if evaluation.system == "dual" else Run.Task.QA, config=config,
        budget_s=settings_.budget_s if settings_.budget_s is not None else settings.EVIDENCE_RUN_BUDGET_S,
        quota=False,  # an evaluation is bounded by its own spending cap, not by the owner's run quota
    )  # fmt: skip
    started = time.perf_counter()
    run = runs.run_here(run, emit=_silent_emit if settings_.quiet_events else _emit)
    latency = time.perf_counter() - started
    metrics = bench.score(question, run)
    relevant = metrics.pop("relevant", [])
    if settings_.answer_judge is not None and bench.answer_judged:
        metrics["judged_correct"] = judge_run(settings_.answer_judge, bench, question, run)
    metrics.update(
        {
            "run": run.pk,
            "status": run.status,
            "latency_s": round(latency, 4),
            "calls": run.calls,
            # The run's own model calls plus the answer judge's, all recorded on the run.
            "cost_usd": round(sum(run.model_calls.values_list("cost_usd", flat=True)) or run.spent_usd, 6),
            "funnel": funnel_recall(run.trajectory, relevant),
            "failure_stage": failure_stage(run.trajectory, relevant, bench.correct(metrics)),
        }
    )
    EvaluationItem.objects.create(evaluation=evaluation, qid=question.qid, run=run, metrics=metrics)
    return metrics


def judge_run(judge: AnswerJudge, bench: Benchmark, question: EvalQuestion, run: Run) -> bool | None:
    """Ask the configured LLM judge whether the run's answer is right; its calls are recorded on the run."""
    from ..agent.llm import DjangoRecorder, make_client
    from ..eval import judge_answer

    recorder = DjangoRecorder(run_id=run.pk)
    source = judge.replay_of_evaluation
    if source:
        original = EvaluationItem.objects.filter(evaluation_id=source, qid=question.qid).first()
        if original is None or original.run_id is None:
            raise ValueError(f"evaluation {source} has no recorded judge call for question {question.qid}")
        client = make_client("replay", source=DjangoRecorder(source_run_id=original.run_id), recorder=recorder)
    else:
        client = make_client(
            "openai",
            recorder=recorder,
            base_url=judge.base_url or settings.OPENAI_BASE_URL,
            api_key=settings.OPENAI_API_KEY or None,
        )
    stored = StoredAnswer.of(run)
    response = f"Explanation: {stored.explanation}\nExact Answer: {stored.exact_answer}"
    return judge_answer(client, judge.model, question.question, response, bench.reference(question)).correct


def _emit(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> None:
    from .. import streams

    streams.emit(run_id, kind, payload)


def _silent_emit(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> None:
    # Bulk evaluations keep only the events the reports need; the live page is not watching.
    # Every tool call stays: BrowseComp-Plus exports list them in order.
    if kind in {"search", "read_search_results", "read_document", "request_evidence", "answer", "finished", "evidence"}:
        _emit(run_id, kind, payload)


def evaluate(
    bench: Benchmark,
    owner: Any,
    system: str,
    config: EvaluationSettings | dict[str, Any],
    limit: int | None = None,
    out_dir: Path | None = None,
    spend_cap_usd: float | None = None,
    progress: Callable[[int, int], None] | None = None,
    fresh: bool = False,
    preparing: Callable[[int, int], None] | None = None,
    prepare: bool = True,
    evaluation: Evaluation | None = None,
) -> dict[str, Any]:
    """Evaluate (or resume evaluating) a system on a benchmark; return the summary.

    The collection is prepared for reading first (as the worker does after an upload), so the questions' figures
    measure reading, not embedding; `preparing(done, total)` reports it, and the summary says how long it took.
    `prepare` False asks a cold collection (the first questions embed the sentences they read). `evaluation` is
    the row to fill (services.evaluations creates it); without it one is resumed by its key, or created.
    """
    settings_ = config if isinstance(config, EvaluationSettings) else EvaluationSettings.of(config)
    config = settings_.as_stored()
    collection = bench.collection(owner)
    preparation_s, prepared = prepare_collection(collection.pk, preparing) if prepare else (0.0, 0)
    questions = bench.questions()[: limit or None]
    key = key_of(bench, collection.name, system, config)
    if evaluation is None and not fresh:
        evaluation = Evaluation.objects.filter(owner=owner, key=key).order_by("-created_at").first()
    if evaluation is None:
        evaluation = Evaluation.objects.create(
            owner=owner, benchmark=bench.name, system=system, collection=collection, config=config, key=key
        )
    out_dir = out_dir or Path(settings.DATA_DIR) / "evals" / f"{bench.name}-{system}-{key}"
    out_dir.mkdir(parents=True, exist_ok=True)
    evaluation.out_dir, evaluation.status = str(out_dir), Evaluation.Status.RUNNING
    evaluation.save(update_fields=["out_dir", "status"])
    cap = spend_cap_usd if spend_cap_usd is not None else settings.EVIDENCE_RUN_SPEND_CAP_USD
    done = set(evaluation.items.values_list("qid", flat=True))
    results = out_dir / "results.jsonl"
    asked_from = time.perf_counter()
    with results.open("a", encoding="utf-8") as out:
        for index, question in enumerate(questions, start=1):
            if progress:
                progress(index, len(questions))
            if question.qid in done:
                continue
            spent = sum(item.metrics.get("cost_usd", 0.0) for item in evaluation.items.all())
            if spent >= cap:
                evaluation.status = Evaluation.Status.STOPPED
                break
            metrics = run_question(evaluation, bench, question)
            out.write(json.dumps({"qid": question.qid, **metrics}) + "\n")
            out.flush()
    items = [item.metrics for item in evaluation.items.filter(qid__in=[q.qid for q in questions])]
    summary = summarize(bench, items)
    if settings_.answer_judge is not None and bench.answer_judged:
        summary.update(agreement([i.get("judged_correct") for i in items], [bench.correct(i) for i in items]))
    summary.update(
        {
            "benchmark": bench.name,
            "system": system,
            "evaluation": evaluation.pk,
            "searcher": settings_.run.get("searcher", "hybrid"),
            # This session's wall time: preparing the papers for reading, then asking the questions not yet asked.
            "preparation_s": round(preparation_s, 2),
            "prepared_regions": prepared,
            "questions_wall_s": round(time.perf_counter() - asked_from, 2),
        }
    )
    if evaluation.status == Evaluation.Status.RUNNING:
        evaluation.status = Evaluation.Status.DONE
    evaluation.summary, evaluation.finished_at = summary, timezone.now()
    evaluation.save(update_fields=["summary", "status", "finished_at"])
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def prepare_collection(collection_id: int, preparing: Callable[[int, int], None] | None) -> tuple[float, int]:
    """Embed whatever the collection's papers still lack for reading; return (seconds, regions embedded)."""
    started = time.perf_counter()
    ready, total = readiness(collection_id)
    done = 0

    def advance(embedded: int) -> None:
        nonlocal done
        done += embedded
        if preparing is not None:
            preparing(done, total - ready)

    if ready < total:
        documents = Document.objects.filter(collection_id=collection_id).order_by("pk")
        prepare_all(list(documents.values_list("pk", flat=True)), advance)
    return time.perf_counter() - started, done


def summarize(bench: type[Benchmark] | Benchmark, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate per-question metrics into the benchmark's own summary plus latency, cost and funnel."""
    summary: dict[str, Any] = {"questions": len(items)}
    if not items:
        return summary
    summary.update(bench.summarize(items))
    latencies = [item["latency_s"] for item in items]
    summary.update(
        {
            "questions": len(items),
            "p50_s": round(float(np.percentile(latencies, 50)), 3),
            "p95_s": round(float(np.percentile(latencies, 95)), 3),
            "calls_per_question": round(float(np.mean([item["calls"] for item in items])), 2),
            "cost_usd": round(sum(item["cost_usd"] for item in items), 4),
            "statuses": _counts(item["status"] for item in items),
            "funnel": {
                stage: round(
                    float(np.mean([item["funnel"].get(stage, 0.0) for item in items if item["funnel"]] or [0.0])), 4
                )
                for stage in ("surfaced", "previewed", "opened", "inspected", "delivered", "cited")
            },
            "failure_stages": {
                stage: sum(1 for item in items if item.get("failure_stage") == stage) for stage in STAGES
            },
        }
    )
    return summary


def _counts(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _rounded(data: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (round(v, 4) if isinstance(v, float) else _rounded(v) if isinstance(v, dict) else v) for k, v in data.items()
    }
