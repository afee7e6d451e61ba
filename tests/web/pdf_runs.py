"""A real paper PDF ingested as uploads are, and a finished run citing a span on one page and one across two."""

from __future__ import annotations

from pathlib import Path

from evidence.ingest.parsers import parse_file
from evidence.ingest.store import store_documents
from evidence.models import Document

PAPER = "N18-3011.pdf"
ONE_PAGE_QUOTE = "The literature graph has 12M nodes of this type."


def ingest_pdf(collection, shared_data: Path, name: str = PAPER) -> Document:
    data = (shared_data / "papers" / "pdf" / name).read_bytes()
    result = store_documents(collection, name, parse_file(name, data), embed=None)
    return Document.objects.get(pk=result.documents[0])


def cross_page_range(document: Document, page: int = 2) -> tuple[int, int]:
    """Return a range from the last sentence-ish stretch of a page into the first words of the next."""
    _number, _start, end = document.pages[page - 1]
    next_start = document.pages[page][1]
    return end - 60, next_start + 50


def pdf_run(owner, collection, document: Document, make_finished_run):
    """A finished run whose citation 1 is on one page and whose citation 2 crosses a page break."""
    from evidence.models import Span

    run = make_finished_run(owner, collection, document, question="How many author nodes are there?",
                            quote=ONE_PAGE_QUOTE)
    start, end = cross_page_range(document)
    span = Span.objects.create(run=run, document=document, start=start, end=end, quote=document.text[start:end],
                               probability=0.7, delivered=True)
    run.citations.create(span=span, answer_part=1, marker=f"[{document.docid}]")
    run.answer = {**run.answer, "explanation": run.answer["explanation"] + f" It continues. [{document.docid}]"}
    run.save(update_fields=["answer"])
    return run
