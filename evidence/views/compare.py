"""Compare two runs: answers, citations shared / only A / only B, timelines, cost, time, calls, funnel chart."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from ..agent.trajectory import STAGES
from ..models import Citation, Run
from . import timeline

BAR_MAX_PX = 360
ROW_PX = 44


@dataclass
class Side:
    run: Run
    citations: list[Citation]
    pieces: list[timeline.AnswerPiece]
    entries: list[timeline.Entry]
    funnel: dict[str, int]
    short: dict[str, Any]


def side(run: Run) -> Side:
    citations = timeline.run_citations(run)
    return Side(
        run,
        citations,
        timeline.answer_pieces(run, citations),
        timeline.entries(run, list(run.events.order_by("seq"))),
        {stage: len((run.trajectory or {}).get(stage, [])) for stage in STAGES},
        timeline.short_answer_view(run),
    )


def split_citations(a: Side, b: Side) -> dict[str, list[tuple[Citation | None, Citation | None]]]:
    """Group citations by (docid, start, end): shared, only in A, only in B."""

    def keyed(s: Side) -> dict[tuple[str, int, int], Citation]:
        return {(c.span.document.docid, c.span.start, c.span.end): c for c in reversed(s.citations)}

    in_a, in_b = keyed(a), keyed(b)
    return {
        "shared": [(in_a[k], in_b[k]) for k in in_a if k in in_b],
        "only_a": [(in_a[k], None) for k in in_a if k not in in_b],
        "only_b": [(None, in_b[k]) for k in in_b if k not in in_a],
    }


def answer_key(answer: str) -> str:
    """Normalise an exact answer as QA scoring does: case, punctuation, articles and spacing don't count."""
    text = "".join(ch for ch in answer.lower() if ch not in string.punctuation)
    return " ".join(w for w in text.split() if w not in {"a", "an", "the"})


@dataclass
class Verdict:
    """Whether two runs' exact answers agree, and the answers as written."""

    a: str
    b: str

    @property
    def disagree(self) -> bool:
        return bool(self.a and self.b) and answer_key(self.a) != answer_key(self.b)


def verdict(a: Side, b: Side) -> Verdict:
    def exact(side: Side) -> str:
        """The short answer a side shows; "" when it found none (not found, or withheld below its threshold)."""
        return str(side.short["text"]).strip() if side.short["state"] == "short" else ""

    return Verdict(exact(a), exact(b))


def funnel_chart(a: dict[str, int], b: dict[str, int]) -> dict[str, Any]:
    """Geometry of the recall funnel as grouped horizontal bars (the template draws it as inline SVG)."""
    top = max([*a.values(), *b.values(), 1])
    rows = []
    for index, stage in enumerate(STAGES):
        y = 10 + index * ROW_PX
        rows.append(
            {
                "stage": stage,
                "label": timeline.STAGE_WORDS[stage][0],
                "help": timeline.STAGE_WORDS[stage][1],
                "y": y,
                "a": a[stage],
                "b": b[stage],
                "wa": max(2, round(BAR_MAX_PX * a[stage] / top)) if a[stage] else 0,
                "wb": max(2, round(BAR_MAX_PX * b[stage] / top)) if b[stage] else 0,
            }
        )
    return {"rows": rows, "height": 20 + len(STAGES) * ROW_PX, "bar_max": BAR_MAX_PX}


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    runs = Run.objects.filter(owner=request.user).select_related("collection").order_by("-created_at")
    context: dict[str, Any] = {
        "choices": runs[:200],
        "a_id": request.GET.get("a", ""),
        "b_id": request.GET.get("b", ""),
    }
    if context["a_id"] and context["b_id"]:
        a = side(get_object_or_404(runs, pk=_int(context["a_id"])))
        b = side(get_object_or_404(runs, pk=_int(context["b_id"])))
        groups = split_citations(a, b)
        context.update(
            a=a,
            b=b,
            sides=[("a", a), ("b", b)],
            pair=[a, b],
            citation_groups=list(groups.items()),
            verdict=verdict(a, b),
            chart=funnel_chart(a.funnel, b.funnel),
        )
    return render(request, "evidence/compare.html", context)


def _int(value: str) -> int:
    return int(value) if value.isdecimal() else 0
