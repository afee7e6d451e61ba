"""A run's answer to take away: Markdown, BibTeX or CSL-JSON of what it cites (the page's links and the API)."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.http import HttpResponse
from django.urls import reverse

from ..models import Run
from .answer_formats import FORMATS, AnswerExport, CitedSpan, Source, answer_markdown, bibtex, csl_items
from .answers import answer_pieces, run_citations, short_answer_view


def export_response(run: Run, fmt: str, absolute: Callable[[str], str]) -> HttpResponse:
    """The export as a file download named after the run."""
    media_type, extension = FORMATS[fmt]
    response = HttpResponse(run_export(run, fmt, absolute), content_type=media_type)
    suffix = "-sources" if fmt != "markdown" else ""
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}{suffix}.{extension}"'
    return response


def run_export(run, fmt: str, absolute: Callable[[str], str]) -> str:
    """A run's answer in `fmt` (a FORMATS key); `absolute` turns a site path into the URL to print."""
    citations = run_citations(run)
    sources = _sources([c.span.document for c in citations])
    if fmt == "bibtex":
        return bibtex(sources)
    if fmt == "csl-json":
        return json.dumps(csl_items(sources), ensure_ascii=False, indent=2) + "\n"
    by_docid = {source.docid: source for source in sources}
    numbers = {citation.pk: number for number, citation in enumerate(citations, start=1)}
    audit = reverse("audit", args=[run.pk])
    cited = [
        CitedSpan(numbers[c.pk], by_docid[c.span.document.docid], c.span.quote, c.span.start, c.span.end,
                  c.span.page, absolute(f"{audit}?span={c.span.pk}#span"))
        for c in citations
    ]  # fmt: skip
    short = short_answer_view(run)
    pieces = answer_pieces(run, citations)
    text = [(piece.text, None) if piece.citation is None else ("", piece.number) for piece in pieces]
    confidence = short.get("confidence")
    return answer_markdown(
        AnswerExport(
            question=run.question,
            collection=run.collection.name,
            run_url=absolute(reverse("run", args=[run.pk])),
            short_state=str(short["state"]),
            short_answer=str(short["text"]),
            confidence=float(confidence) if isinstance(confidence, int | float) else None,
            text=text,
            citations=cited,
        )
    )


def _sources(documents) -> list[Source]:
    """Each cited document once, in order of first citation, with the facts its metadata holds."""
    seen: dict[int, Source] = {}
    for document in documents:
        if document.pk in seen:
            continue
        meta = document.metadata or {}
        year = meta.get("year")
        authors = meta.get("authors") or ()
        seen[document.pk] = Source(
            docid=document.docid,
            title=document.title or document.docid,
            authors=tuple(str(a) for a in authors if str(a).strip()) if isinstance(authors, list) else (),
            year=int(year) if isinstance(year, int) or (isinstance(year, str) and year.isdecimal()) else None,
            doi=str(meta.get("doi") or ""),
            venue=str(meta.get("journal") or meta.get("venue") or ""),
            file_name=document.source_name.rsplit("/", 1)[-1],
            # A library's venue replaces the parsed one, whose kind then no longer applies.
            kind="" if "library" in meta else str(meta.get("venue_kind") or ""),
            eprint=str(meta.get("arxiv") or ""),
        )
    return list(seen.values())
