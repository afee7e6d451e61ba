"""Under ASGI (uvicorn, as `make run` serves) no response makes Django consume a synchronous iterator: the run
page's stream and the API's are async generators, a PDF page image is sent whole."""

from __future__ import annotations

import httpx
import pytest

from tests.web.pdf_runs import ingest_pdf

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

SYNC_ITERATOR = "StreamingHttpResponse must consume synchronous iterators"


def sync_iterator_warnings(recwarn) -> list[str]:
    return [str(w.message) for w in recwarn if SYNC_ITERATOR in str(w.message)]


def test_the_event_streams_are_async_under_asgi(asgi_server, session_cookie, finished_run, recwarn):
    with httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=20) as http:
        page = http.get(f"/runs/{finished_run.pk}/stream?after=0")
        api = http.get(f"/api/runs/{finished_run.pk}/stream?after=0")
    assert page.status_code == 200 and "event: step" in page.text
    assert api.status_code == 200 and "event: search" in api.text
    assert sync_iterator_warnings(recwarn) == []


def test_a_pdf_page_image_is_sent_without_a_sync_iterator(
    asgi_server, session_cookie, collection, shared_data, settings, tmp_path, recwarn
):
    settings.EVIDENCE_PAGE_CACHE_DIR = tmp_path / "pages"
    document = ingest_pdf(collection, shared_data)
    with httpx.Client(base_url=asgi_server, cookies=session_cookie, timeout=30) as http:
        response = http.get(f"/documents/{document.pk}/pages/2.png")
    assert response.status_code == 200 and response.content.startswith(b"\x89PNG")
    assert response.headers["content-length"] == str(len(response.content))
    assert "max-age" in response.headers["cache-control"]
    assert sync_iterator_warnings(recwarn) == []
