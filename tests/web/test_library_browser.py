"""In Chromium: a Zotero export dropped on a collection's upload form gives each paper its library title and
byline, lists the entries no paper took, and the collection page says when the papers are ready for questions."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evidence.models import Collection, Document
from tests.ingest_app.test_library_import import PAPERS, zotero_export
from tests.real_data import require
from tests.web.test_pages_browser import NO_SIDEWAYS, login, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("real_papers"),
]


@pytest.fixture
def real_papers() -> Path:
    return require(PAPERS)


def test_a_zotero_export_through_the_upload_form(
    page: Page, asgi_server, celery_worker, user, session_cookie, settings, tmp_path
):
    settings.EVIDENCE_PREPARE_IN_BACKGROUND = True  # as shipped: the worker prepares the papers after indexing
    collection = Collection.objects.create(owner=user, name="My Zotero")
    export = tmp_path / "My Library.zip"
    export.write_bytes(zotero_export())
    login(page, asgi_server, session_cookie)
    page.goto(f"{asgi_server}/collections/{collection.pk}/")
    expect(page.locator(".dropzone")).to_contain_text("Export Collection")
    page.set_input_files("#id_files", str(export))
    page.click("button:has-text('Upload and index')")
    page.wait_for_url("**/uploads/*/")
    expect(page.locator("#progress")).to_have_attribute("data-status", "done", timeout=120_000)
    expect(page.locator("#library-counts")).to_have_text(
        "2 of 4 entries gave a paper its title, authors, year, venue and DOI."
    )
    missing = page.locator(".missing-entries li")
    expect(missing).to_have_count(2)
    expect(missing.filter(has_text="A book with no attachment")).to_contain_text("it has no attached file")
    snapshot = page.locator("tr.file", has_text="snapshot.html")
    expect(snapshot).to_contain_text("Skipped: another copy of")
    expect(snapshot.locator(".badge")).to_have_text("skipped")
    assert page.evaluate(NO_SIDEWAYS)
    shot(page, "library-upload")

    page.goto(f"{asgi_server}/collections/{collection.pk}/")
    # The page polls until every sentence and paragraph is prepared for reading.
    expect(page.locator("#readiness")).to_contain_text("ready for questions", timeout=120_000)
    document = Document.objects.get(collection=collection, source_name__endswith="ave2008.pdf")
    page.goto(f"{asgi_server}/documents/{document.pk}/")
    expect(page.locator("h1")).to_have_text(document.title)
    expect(page.locator("#byline")).to_contain_text("Jane Doe, Hans Müller · 2019 · Journal of Tests")
    expect(page.locator("#byline a")).to_have_attribute("href", "https://doi.org/10.1000/ave.2008")
