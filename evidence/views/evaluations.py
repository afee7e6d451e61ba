"""Evaluation results: the list, one evaluation's summary and per-question table, and two compared."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from ..agent.core import STAGES
from ..eval.compare import compare_items
from ..eval.kinds import kind_of
from ..models import Evaluation

BAR_PX = 320
ROW_PX = 30


def headline_of(benchmark: str) -> tuple[str, ...]:
    kind = kind_of(benchmark)
    return kind.headline if kind else ()


def owned(request: HttpRequest, pk: Any) -> Evaluation:
    return get_object_or_404(Evaluation, pk=pk, owner=request.user)


@require_GET
def evaluations(request: HttpRequest) -> HttpResponse:
    rows = Evaluation.objects.filter(owner=request.user).order_by("-created_at")[:200]
    listed = [{"evaluation": e, "headline": [(k, e.summary.get(k)) for k in headline_of(e.benchmark)]} for e in rows]
    return render(request, "evidence/evaluations.html", {"rows": listed, "choices": rows})


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
    questions = [
        {
            "qid": q.qid,
            "run": q.run_id,
            "status": q.metrics.get("status"),
            "failure": q.metrics.get("failure_stage"),
            "values": [q.metrics.get(k) for k in metrics],
        }
        for q in item.items.order_by("id")
    ]
    summary = {k: v for k, v in item.summary.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    return render(
        request,
        "evidence/evaluation.html",
        {
            "evaluation": item,
            "summary": summary,
            "funnel": funnel_bars(item.summary.get("funnel") or {}),
            "funnel_height": 16 + len(STAGES) * ROW_PX,
            "failures": (item.summary.get("failure_stages") or {}).items(),
            "reliability": reliability_chart(item.summary.get("reliability") or []),
            "metrics": metrics,
            "questions": questions,
        },
    )


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
    choices = Evaluation.objects.filter(owner=request.user).order_by("-created_at")[:200]
    context: dict[str, Any] = {"choices": choices, "a_id": request.GET.get("a", ""), "b_id": request.GET.get("b", "")}
    if context["a_id"] and context["b_id"]:
        a, b = owned(request, context["a_id"]), owned(request, context["b_id"])
        if a.benchmark != b.benchmark:
            context["error"] = f"A is a {a.benchmark} evaluation and B a {b.benchmark} one: compare the same benchmark."
        else:
            report = compare_items(
                a.benchmark, {i.qid: i.metrics for i in a.items.all()}, {i.qid: i.metrics for i in b.items.all()}
            )
            context.update({"a": a, "b": b, "report": report, "chart": diff_bars(report["metrics"])})
    return render(request, "evidence/evaluations_compare.html", context)
