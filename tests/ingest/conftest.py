"""Fixtures for the ingest tests: the shared real data and the document invariants."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from evidence.ingest.chunking import make_passages
from evidence.ingest.types import ParsedDocument
from tests.real_data import SHARED_DATA, require


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Return the shared real data folder (skipped on a clone without it, failed under CI=true)."""
    return require(SHARED_DATA)


def _check_span(text: str, start: int, end: int, what: str) -> None:
    """Assert that a span is in bounds, non-empty and not whitespace-padded."""
    assert 0 <= start < end <= len(text), f"{what} out of bounds: {start}-{end}"
    quote = text[start:end]
    assert quote.strip() == quote, f"{what} is whitespace-padded: {quote[:40]!r}"


def assert_document_ok(doc: ParsedDocument) -> None:
    """Assert every offset invariant of a parsed document and its passages."""
    text = doc.text
    assert text and text == text.strip()
    assert doc.title.strip() == doc.title and doc.title
    assert "\r" not in text and "\x00" not in text
    for region in doc.regions:
        assert region.kind in {"section", "paragraph", "sentence"}
        _check_span(text, region.start, region.end, f"{region.kind} region")
    paragraphs = doc.regions_of("paragraph")
    assert paragraphs, "no paragraph regions"
    for sentence in doc.regions_of("sentence"):
        assert any(p.start <= sentence.start and sentence.end <= p.end for p in paragraphs)
    passages = make_passages(doc)
    assert passages
    previous_end = 0
    for i, passage in enumerate(passages):
        assert passage.ordinal == i
        _check_span(text, passage.start, passage.end, "passage")
        assert passage.start >= previous_end
        assert len(text[passage.start : passage.end].split()) <= 250
        previous_end = passage.end
    if doc.pages:
        assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
        for page in doc.pages:
            assert 0 <= page.start <= page.end <= len(text)
        for region in doc.regions:
            page = doc.pages[region.page - 1]
            assert page.start <= region.start and region.end <= page.end, "region outside its page"


@pytest.fixture
def check_document() -> Callable[[ParsedDocument], None]:
    """Return the invariant checker for parsed documents."""
    return assert_document_ok
