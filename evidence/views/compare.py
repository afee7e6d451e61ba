"""Compare two runs: answers, citations shared / only A / only B, timelines, cost, time, calls, funnel chart."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from ..agent.core import STAGES
from ..models import Citation, Run
from ..presenting import answers
from . import timeline

BAR_MAX_PX = 360
ROW_PX = 44


@dataclass
class Side:
    run: Run
    citations: list[Citation]
    pieces: list[answers.AnswerPiece]
    entries: list[timeline.Entry]
    funnel: dict[str, int]
    short: dict[str, Any]


def side(run: Run) -> Side:
    citations = answers.run_citations(run)
    return Side(
        run,
        citations,
        answers.answer_pieces(run, citations),
        timeline.entries(run, list(run.events.order_by("seq"))),
        {stage: len((run.trajectory or {}).get(stage, [])) for stage in STAGES},
        answers.short_answer_view(run),
    )


@dataclass
class CitedRow:
    """One cited span in the comparison: A's and/or B's citation of it, and which answer its own text states."""

    a: Citation | None
    b: Citation | None
    support: str = ""  # "a", "b", "both", "neither"; "" when neither run shows a short answer

    @property
    def citation(self) -> Citation:
        return self.a or self.b  # type: ignore[return-value]


def split_citations(a: Side, b: Side, answers: Verdict | None = None) -> dict[str, list[CitedRow]]:
    """Group citations by (docid, start, end): shared, only in A, only in B; each judged by what its text says."""

    def keyed(s: Side) -> dict[tuple[str, int, int], Citation]:
        return {(c.span.document.docid, c.span.start, c.span.end): c for c in reversed(s.citations)}

    in_a, in_b = keyed(a), keyed(b)
    groups = {
        "shared": [CitedRow(in_a[k], in_b[k]) for k in in_a if k in in_b],
        "only_a": [CitedRow(in_a[k], None) for k in in_a if k not in in_b],
        "only_b": [CitedRow(None, in_b[k]) for k in in_b if k not in in_a],
    }
    if answers is not None and (answers.a or answers.b):
        for row in (row for rows in groups.values() for row in rows):
            row.support = span_support(row.citation.span.quote, answers)
    return groups


def states(text: str, answer: str) -> bool:
    """Whether a text states an answer: its normalised words appear in order, as whole words ("1" is not in
    "8.1M papers")."""
    words, wanted = answer_key(text).split(), answer_key(answer).split()
    if not wanted:
        return False
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))


def span_support(quote: str, answers: Verdict) -> str:
    """Which run's short answer a span's own text states: "a", "b", "both" or "neither"."""
    in_a = bool(answers.a) and states(quote, answers.a)
    in_b = bool(answers.b) and states(quote, answers.b)
    if in_a and in_b:
        return "a" if answer_key(answers.a) == answer_key(answers.b) else "both"
    return "a" if in_a else "b" if in_b else "neither"


def differences(a: Run, b: Run) -> list[str]:
    """What makes two runs hard to compare: different questions, collections or document scopes."""
    found = []
    if " ".join(a.question.lower().split()) != " ".join(b.question.lower().split()):
        found.append("They answer different questions, so their answers and citations need not agree.")
    if a.collection_id != b.collection_id:
        found.append(f"They searched different collections (“{a.collection.name}” and “{b.collection.name}”).")
    scope_a = sorted(str(d) for d in (a.config or {}).get("scope_docids") or [])
    scope_b = sorted(str(d) for d in (b.config or {}).get("scope_docids") or [])
    if scope_a != scope_b:
        found.append("They were limited to different documents of the collection.")
    return found


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
        answers = verdict(a, b)
        groups = split_citations(a, b, answers)
        context.update(
            a=a,
            b=b,
            sides=[("a", a), ("b", b)],
            pair=[a, b],
            citation_groups=list(groups.items()),
            verdict=answers,
            differences=differences(a.run, b.run),
            paid=any(run.calls or run.spent_usd for run in (a.run, b.run)),
            chart=funnel_chart(a.funnel, b.funnel),
        )
    return render(request, "evidence/compare.html", context)


def _int(value: str) -> int:
    return int(value) if value.isdecimal() else 0
