"""Audit a run: the answer beside the source document, the cited span highlighted by its exact offsets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from .. import pdfpages
from ..models import Document, Judgment, Run, SourceFile, Span
from . import timeline


def highlight_segments(text: str, start: int, end: int, pages: list, highlight: bool) -> list[tuple[str, Any]]:
    """Cut text into ("text"|"mark", slice) and ("page", number) pieces; the template escapes each slice.

    Only a span whose offsets still select its quote is marked; a page break falling inside the span is
    left out so the marked text stays exactly text[start:end].
    """
    cuts: list[tuple[int, int, str, Any]] = []  # (offset, order at equal offsets, kind, value)
    for number, page_start, _page_end in pages or []:
        if page_start > 0 and not (highlight and start < page_start < end):
            cuts.append((int(page_start), 0, "page", int(number)))
    if highlight:
        cuts += [(start, 1, "open", None), (end, 2, "close", None)]
    cuts.sort(key=lambda cut: (cut[0], cut[1]))
    pieces: list[tuple[str, Any]] = []
    position, inside = 0, False
    for offset, _order, kind, value in cuts:
        if offset > position:
            pieces.append(("mark" if inside else "text", text[position:offset]))
            position = offset
        if kind == "page":
            pieces.append(("page", value))
        else:
            inside = kind == "open"
    if position < len(text):
        pieces.append(("text", text[position:]))
    return pieces


@dataclass
class Support:
    """A judgment shown beside a span: where it came from, its goal and probability."""

    source: str
    goal: str
    probability: float | None
    detail: str = ""


def supports(run: Run, span: Span) -> list[Support]:
    """The judgments of the span's document in this run (rows and events) and the span's own delivery."""
    found: list[Support] = []
    rows = Judgment.objects.filter(run=run, document=span.document)
    if span.judgment_id:
        rows = rows | Judgment.objects.filter(pk=span.judgment_id)
    for row in rows.distinct().order_by("id"):
        best = max((float(p) for p in row.probabilities or [0.0]), default=0.0)
        how = {"noul": "relevance", "choice": "a choice among passages", "score": "a score"}.get(row.kind, row.kind)
        found.append(
            Support(f"The fast reader judged the document ({how})", row.goal, best,
                    f"it read characters {row.start}–{row.end}")
        )  # fmt: skip
    docid = span.document.docid
    for event in run.events.filter(kind__in=["judgment", "evidence"], payload__docid=docid).order_by("seq"):
        p = event.payload
        if event.kind == "evidence" and (p.get("start"), p.get("end")) != (span.start, span.end):
            continue
        label = "Judged the document" if event.kind == "judgment" else "Handed this span to the planner"
        found.append(Support(f"{label} (step {event.seq} of the run)", str(p.get("goal", "")), p.get("probability")))
    return found


@dataclass
class PageView:
    """What the page pane shows for a span: 'drawn' pages, or why there is no page ('no_source', 'broken')."""

    state: str
    pages: list[pdfpages.PageBoxes]
    characters: int = 0
    missing: int = 0


def page_view(document: Document, span: Span, intact: bool) -> PageView | None:
    """Return the span's boxes on its PDF pages; None for a document that has no pages to show."""
    if document.source_format != "pdf":
        return None
    if not intact:
        return PageView("broken", [])  # offsets that no longer select the quote draw nothing
    source = SourceFile.objects.filter(document=document).first()
    if source is None or not source.char_map:
        return PageView("no_source", [])
    pages = pdfpages.span_pages(document, source, span.start, span.end)
    return PageView("drawn", pages, sum(p.characters for p in pages), sum(p.missing for p in pages))


@require_GET
def page_image(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Serve a PDF page rendered once and cached under the data folder."""
    document = get_object_or_404(Document, pk=pk, collection__owner=request.user)
    source = get_object_or_404(SourceFile.objects.defer("data", "char_map"), document=document)
    try:
        path, _seconds = pdfpages.page_image(source, number)
    except IndexError:
        raise Http404("No such page.") from None
    except pdfpages.PageTooLarge:
        raise Http404("This page is too large to show as an image; the text view beside it has the span.") from None
    response = FileResponse(path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "private, max-age=86400"  # a page of an immutable document never changes
    return response


@require_GET
def audit(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    citations = timeline.run_citations(run)
    spans = list(Span.objects.filter(run=run).select_related("document").order_by("id"))
    chosen = request.GET.get("span", "")
    span: Span | None = None
    if chosen:
        span = next((s for s in spans if str(s.pk) == chosen), None)
        if span is None:
            raise Http404("No such span in this run.")
    elif citations:
        span = citations[0].span
    elif spans:
        span = spans[0]
    context: dict[str, Any] = {
        "run": run,
        "citations": citations,
        "spans": spans,
        "span": span,
        "pieces": timeline.answer_pieces(run, citations),
        "short": timeline.short_answer_view(run),
    }
    if span is not None:
        document = span.document
        ok = span.matches_source
        context.update(
            document=document,
            intact=ok,
            segments=highlight_segments(document.text, span.start, span.end, document.pages, ok),
            supports=supports(run, span),
            page=span.page or (document.page_at(span.start) if document.pages else None),
            page_view=page_view(document, span, ok),
        )
    if request.htmx:
        return render(request, "evidence/audit.html#source", context)
    return render(request, "evidence/audit.html", context)
