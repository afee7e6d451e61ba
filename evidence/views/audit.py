"""Audit a run: the answer beside the source document, the cited span highlighted by its exact offsets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from .. import pdfpages
from ..models import Document, Judgment, Run, SourceFile, Span
from ..presenting import answer_pieces, run_citations, short_answer_view


def highlight_segments(text: str, start: int, end: int, pages: list, highlight: bool, lo: int = 0,
                       hi: int | None = None) -> list[tuple[str, Any]]:
    """Cut text[lo:hi] into ("text"|"mark", slice) and ("page", number) pieces; the template escapes each slice.

    Only a span whose offsets still select its quote is marked; a page break falling inside the span is
    left out so the marked text stays exactly text[start:end]. A page starting at lo belongs to this piece of
    text, one starting at hi to the next, so pieces loaded one after another show each break once.
    """
    hi = len(text) if hi is None else hi
    cuts: list[tuple[int, int, str, Any]] = []  # (offset, order at equal offsets, kind, value)
    for number, page_start, _page_end in pages or []:
        if page_start > 0 and lo <= page_start < hi and not (highlight and start < page_start < end):
            cuts.append((int(page_start), 0, "page", int(number)))
    if highlight and lo <= start and end <= hi:
        cuts += [(start, 1, "open", None), (end, 2, "close", None)]
    cuts.sort(key=lambda cut: (cut[0], cut[1]))
    pieces: list[tuple[str, Any]] = []
    position, inside = lo, False
    for offset, _order, kind, value in cuts:
        if offset > position:
            pieces.append(("mark" if inside else "text", text[position:offset]))
            position = offset
        if kind == "page":
            pieces.append(("page", value))
        else:
            inside = kind == "open"
    if position < hi:
        pieces.append(("text", text[position:hi]))
    return pieces


# The text pane opens on about this many characters either side of the span (whole paragraphs), and each
# "show earlier/later text" loads one more piece: a paper's whole text is some 50 screens on a phone.
WINDOW_BEFORE, WINDOW_AFTER, MORE = 800, 1600, 6000


def back_to_break(text: str, at: int, reach: int) -> int:
    """Return the start of the paragraph holding offset at (else of its line, else word), looking back <= reach."""
    if at <= 0:
        return 0
    floor = max(0, at - reach)
    for separator in ("\n\n", "\n", " "):
        found = text.rfind(separator, floor, at)
        if found != -1:
            return found + len(separator)
    return floor


def on_to_break(text: str, at: int, reach: int) -> int:
    """Return the end of the paragraph holding offset at (else of its line, else word), looking on <= reach."""
    if at >= len(text):
        return len(text)
    ceiling = min(len(text), at + reach)
    for separator in ("\n\n", "\n", " "):
        found = text.find(separator, at, ceiling)
        if found != -1:
            return found
    return ceiling


def text_window(text: str, start: int, end: int) -> tuple[int, int]:
    """Return the range [lo, hi) of whole paragraphs around text[start:end] that the text pane opens on."""
    lo = back_to_break(text, start - WINDOW_BEFORE, WINDOW_BEFORE)
    return lo, on_to_break(text, end + WINDOW_AFTER, WINDOW_AFTER)


def more_text(text: str, before: int | None = None, after: int | None = None) -> tuple[int, int]:
    """Return the next piece to load: the paragraphs ending at offset before, or starting at offset after."""
    if before is not None:
        return back_to_break(text, before - MORE, MORE), before
    assert after is not None
    return after, on_to_break(text, after + MORE, MORE)


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
    # Sent whole (a page is a few hundred KB): a FileResponse's file iterator is synchronous, which Django under
    # ASGI consumes in a thread with a warning per response.
    response = HttpResponse(path.read_bytes(), content_type="image/png")
    response["Cache-Control"] = "private, max-age=86400"  # a page of an immutable document never changes
    return response


@require_GET
def audit(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("collection"), pk=pk, owner=request.user)
    citations = run_citations(run)
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
        "pieces": answer_pieces(run, citations),
        "short": short_answer_view(run),
    }
    if span is not None:
        document = span.document
        ok = span.matches_source
        text = document.text
        if request.htmx and (request.GET.get("before") or request.GET.get("after")):
            return more_text_piece(request, context, document, span, ok)
        lo, hi = (0, len(text)) if request.GET.get("text") == "all" else text_window(text, span.start, span.end)
        context.update(
            document=document,
            intact=ok,
            segments=highlight_segments(text, span.start, span.end, document.pages, ok, lo, hi),
            more_before=lo,
            more_after=hi if hi < len(text) else None,
            after_left=len(text) - hi,
            supports=supports(run, span),
            page=span.page or (document.page_at(span.start) if document.pages else None),
            page_view=page_view(document, span, ok),
        )
    if request.htmx:
        return render(request, "evidence/audit.html#source", context)
    return render(request, "evidence/audit.html", context)


def more_text_piece(request: HttpRequest, context: dict[str, Any], document: Document, span: Span,
                    ok: bool) -> HttpResponse:
    """Render the piece of text before or after what the text pane shows, with the link to the next one."""
    text = document.text
    try:
        before, after = (int(request.GET[key]) if request.GET.get(key) else None for key in ("before", "after"))
    except ValueError:
        raise Http404("No such piece of the text.") from None
    edge = before if before is not None else after
    if edge is None or not 0 <= edge <= len(text):
        raise Http404("No such piece of the text.")
    lo, hi = more_text(text, before=before, after=None if before is not None else after)
    context.update(
        document=document,
        span=span,
        segments=highlight_segments(text, span.start, span.end, document.pages, ok, lo, hi),
        more_before=lo if before is not None else None,
        more_after=hi if before is None and hi < len(text) else None,
        after_left=len(text) - hi,
    )
    return render(request, "evidence/audit.html#text_piece", context)
