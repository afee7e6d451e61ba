"""Evaluations: the list with a question set to start one, one evaluation's progress, summary and per-question
table, and two compared."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods

from ..agent.core import STAGES
from ..eval import MAX_BYTES, MAX_QUESTIONS, compare_items, kind_of
from ..forms import EvaluationForm
from ..models import Collection, Evaluation
from ..presenting import short_answer_view
from ..services import EvaluationRefused

BAR_PX = 320
ROW_PX = 30
MULTIPART_SLACK = 64 * 1024  # the form's other fields and the multipart boundaries around the file


def headline_of(benchmark: str) -> tuple[str, ...]:
    kind = kind_of(benchmark)
    return kind.headline if kind else ()


def owned(request: HttpRequest, pk: Any) -> Evaluation:
    return get_object_or_404(Evaluation, pk=pk, owner=request.user)


def choice_label(e: Evaluation) -> str:
    """How a picker names an evaluation: number, question set (or benchmark), system, collection, date."""
    parts = [f"#{e.pk} {e.label or e.benchmark}", e.system]
    if e.collection_id:
        parts.append(e.collection.name)
    return " · ".join([*parts, e.created_at.strftime("%-d %b %H:%M")])


def choices_of(request: HttpRequest) -> list[dict[str, Any]]:
    rows = Evaluation.objects.filter(owner=request.user).select_related("collection").order_by("-created_at")[:200]
    return [{"pk": e.pk, "label": choice_label(e)} for e in rows]


# CSRF is checked in _start instead of the middleware: the middleware would parse the multipart body to find the
# token, and the size check must come before anything reads the body.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def evaluations(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        length = request.META.get("CONTENT_LENGTH") or ""
        if not length.isdecimal() or int(length) > MAX_BYTES + MULTIPART_SLACK:
            refused = (
                f"The upload is over the limit of {MAX_BYTES // 1024} KB for a question set: split it into smaller "
                "sets."
                if length.isdecimal()
                else "The upload has no Content-Length: send it from the form."
            )
            return listing(request, EvaluationForm(owner=request.user), status=413, refused=refused)
        return _start(request)
    return listing(request, EvaluationForm(owner=request.user))


@csrf_protect
def _start(request: HttpRequest) -> HttpResponse:
    form = EvaluationForm(request.POST, request.FILES, owner=request.user)
    if form.is_valid():
        try:
            evaluation = form.start()
        except EvaluationRefused as error:
            form.add_error(None, str(error))
        else:
            return redirect("evaluation", pk=evaluation.pk)
    return listing(request, form, status=400)


def listing(request: HttpRequest, form: EvaluationForm, status: int = 200, refused: str = "") -> HttpResponse:
    rows = Evaluation.objects.filter(owner=request.user).select_related("collection").order_by("-created_at")[:200]
    listed = [
        {
            "evaluation": e,
            "headline": [(k, e.summary.get(k)) for k in headline_of(e.benchmark)],
            "done": 0 if e.finished else e.items.count(),
        }
        for e in rows
    ]
    choices = [{"pk": e.pk, "label": choice_label(e)} for e in rows]
    context = {
        "rows": listed,
        "choices": choices,
        # B − A reads "newer minus older": A the second newest, B the newest.
        "a_id": str(choices[1]["pk"]) if len(choices) > 1 else "",
        "b_id": str(choices[0]["pk"]) if choices else "",
        "form": form,
        "refused": refused,
        "has_collections": Collection.objects.filter(owner=request.user).exists(),
        "max_kb": MAX_BYTES // 1024,
        "max_questions": MAX_QUESTIONS,
    }
    return render(request, "evidence/evaluations.html", context, status=status)


def funnel_bars(funnel: dict[str, float]) -> list[dict[str, Any]]:
    """Bars of the recall funnel: the share of gold documents that reached each stage."""
    return [
        {
            "label": stage,
            "y": 8 + i * ROW_PX,
            "value": funnel.get(stage, 0.0),
            "width": round(BAR_PX * float(funnel.get(stage, 0.0))),
        }
        for i, stage in enumerate(STAGES)
    ]


RELIABILITY_PX = 200  # the reliability chart's square plot area


def reliability_chart(bins: list[list[float]]) -> list[dict[str, Any]]:
    """Columns of a reliability diagram: per confidence bin, the observed accuracy against the bin's mean confidence."""
    out = []
    for row in bins or []:
        try:
            lo, hi, n, mean, accuracy = (float(v) for v in row)
        except (TypeError, ValueError):
            continue
        out.append(
            {
                "x": round(30 + RELIABILITY_PX * lo),
                "width": max(round(RELIABILITY_PX * (hi - lo)) - 2, 1),
                "height": round(RELIABILITY_PX * accuracy),
                "y": round(10 + RELIABILITY_PX * (1 - accuracy)),
                "mean_y": round(10 + RELIABILITY_PX * (1 - mean)),
                "n": int(n),
                "label": f"{lo:.1f}-{hi:.1f}: n={int(n)}, confidence {mean:.2f}, accuracy {accuracy:.2f}",
            }
        )
    return out


@require_GET
def evaluation(request: HttpRequest, pk: int) -> HttpResponse:
    item = owned(request, pk)
    kind = kind_of(item.benchmark)
    metrics = [*(kind.per_question if kind else ()), "latency_s"]
    context = {
        "evaluation": item,
        "progress": progress_of(item),
        "summary": summary_rows(item),
        "funnel": funnel_bars(item.summary.get("funnel") or {}),
        "funnel_height": 16 + len(STAGES) * ROW_PX,
        "failures": (item.summary.get("failure_stages") or {}).items(),
        "reliability": reliability_chart(item.summary.get("reliability") or []),
        "metrics": [m.replace("_", " ") for m in metrics],  # headers that wrap, leaving room for the question
        "questions": question_rows(item, metrics),
        "choices": choices_of(request) if item.finished else [],
    }
    if request.htmx:
        return render(request, "evidence/evaluation.html#live", context)
    return render(request, "evidence/evaluation.html", context)


def summary_rows(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The summary's figures, the benchmark's headline first, then the rest by name; counts as whole numbers."""
    figures = {
        k: v
        for k, v in evaluation.summary.items()
        if isinstance(v, int | float) and not isinstance(v, bool) and k != "evaluation"  # its own number
    }
    headline = [k for k in headline_of(evaluation.benchmark) if k in figures]
    return [
        {
            "name": k,
            "value": str(figures[k]) if isinstance(figures[k], int) else f"{figures[k]:.4f}",
            "headline": k in headline,
        }
        for k in [*headline, *sorted(set(figures) - set(headline))]
    ]


def progress_of(evaluation: Evaluation) -> dict[str, Any]:
    """Where the evaluation is, for its page: questions done of all, and what it is doing, in a sentence."""
    done, total = evaluation.items.count(), evaluation.total
    progress = evaluation.progress
    if evaluation.finished:
        words = ""
    elif not evaluation.is_active():
        words = "No progress for half an hour: the worker running it may have stopped."
    elif evaluation.status == Evaluation.Status.QUEUED:
        words = "Waiting for a worker."
    elif progress.get("stage") == "preparing" and progress.get("total"):
        words = (
            f"Preparing the papers for reading: {progress['done']} of {progress['total']} sentences and paragraphs "
            "embedded."
        )
    elif progress.get("stage") == "preparing":
        words = "Preparing the papers for reading."
    elif total:
        words = f"Asking question {min(done + 1, total)} of {total}."
    else:  # a benchmark run from the command line: its number of questions is known at its end
        words = f"{done} questions asked so far."
    return {"done": done, "total": total, "pct": round(100 * done / total) if total else 0, "words": words}


def question_rows(evaluation: Evaluation, metrics: list[str]) -> list[dict[str, Any]]:
    """One row per question: its text and gold answer (when stored), its run's short answer and metrics; the
    questions not asked yet as waiting rows."""
    items = {i.qid: i for i in evaluation.items.select_related("run").order_by("id")}
    asked = [{"qid": q["qid"], "question": q["question"], "gold": q["answers"][0]} for q in evaluation.questions]
    asked += [{"qid": qid, "question": "", "gold": ""} for qid in items if qid not in {q["qid"] for q in asked}]
    rows = []
    for row in asked:
        item = items.get(row["qid"])
        if item is None:
            rows.append({**row, "status": "waiting", "values": []})
            continue
        rows.append(
            {
                **row,
                "run": item.run_id,
                "answer": short_answer_view(item.run) if item.run else None,
                "status": item.metrics.get("status"),
                "failure": item.metrics.get("failure_stage"),
                "values": [item.metrics.get(k) for k in metrics],
            }
        )
    return rows


def diff_bars(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometry of a difference chart: one bar per metric from 0 to B-A, with its 95% interval as a whisker."""
    span = max([abs(v) for row in rows for v in (row["diff"], *row["ci95"])] + [1e-9])
    centre = BAR_PX // 2 + 150
    bars = []
    for i, row in enumerate(rows):
        scale = (BAR_PX // 2) / span
        x0, x1 = sorted((centre, centre + row["diff"] * scale))
        bars.append(
            {
                **row,
                "y": 8 + i * ROW_PX,
                "x": round(x0),
                "width": max(1, round(x1 - x0)),
                "lo": round(centre + row["ci95"][0] * scale),
                "hi": round(centre + row["ci95"][1] * scale),
                "positive": row["diff"] >= 0,
            }
        )
    return {"bars": bars, "centre": centre, "height": 16 + len(rows) * ROW_PX, "width": centre + BAR_PX // 2 + 60}


@require_GET
def compare_evaluations(request: HttpRequest) -> HttpResponse:
    choices = choices_of(request)
    context: dict[str, Any] = {"choices": choices, "a_id": request.GET.get("a", ""), "b_id": request.GET.get("b", "")}
    if context["a_id"] and context["b_id"]:
        a, b = owned(request, context["a_id"]), owned(request, context["b_id"])
        items_a, items_b = paired_items(a, b)
        if a.benchmark != b.benchmark:
            context["error"] = f"A is a {a.benchmark} evaluation and B a {b.benchmark} one: compare the same benchmark."
        elif not set(items_a) & set(items_b):
            context["error"] = "A and B asked no question in common: compare two evaluations of the same question set."
        else:
            report = compare_items(a.benchmark, items_a, items_b)
            context.update({"a": a, "b": b, "report": report, "chart": diff_bars(report["metrics"])})
    return render(request, "evidence/evaluations_compare.html", context)


def paired_items(a: Evaluation, b: Evaluation) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both evaluations' metrics by qid; of two stored question sets, only the questions asked in both (the same
    id with the same text: two uploaded sets may both number their questions q1, q2, ...)."""
    items_a = {i.qid: i.metrics for i in a.items.all()}
    items_b = {i.qid: i.metrics for i in b.items.all()}
    if a.questions and b.questions:
        text_a = {q["qid"]: q["question"] for q in a.questions}
        text_b = {q["qid"]: q["question"] for q in b.questions}
        same = {qid for qid in text_a if text_b.get(qid) == text_a[qid]}
        items_a = {qid: m for qid, m in items_a.items() if qid in same}
        items_b = {qid: m for qid, m in items_b.items() if qid in same}
    return items_a, items_b
