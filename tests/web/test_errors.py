"""Page errors never carry a traceback, even in debug; a NUL byte in a query or form is a plain 400."""

from __future__ import annotations

import pytest

from evidence.errors import CRASH_SENTENCE, NUL_SENTENCE


@pytest.fixture(autouse=True)
def debug_on(settings):
    settings.DEBUG = True  # what DJANGO_DEBUG=1 sets: the mode that shows Django's technical 500 page


@pytest.mark.django_db
def test_an_unexpected_error_is_a_plain_500_page(logged_in_client, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("internal detail that must stay in the log")

    monkeypatch.setattr("evidence.views.home.AskForm", broken)
    response = logged_in_client.get("/")

    assert response.status_code == 500
    body = response.content.decode()
    assert CRASH_SENTENCE in body and f"(request id {response['X-Request-ID']})" in body  # what to report
    assert "Traceback" not in body and "internal detail" not in body and "RuntimeError" not in body
    assert any("internal detail" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


@pytest.mark.django_db
def test_a_missing_object_is_still_a_404(logged_in_client):
    assert logged_in_client.get("/runs/999999/").status_code == 404


@pytest.mark.django_db
def test_a_nul_in_the_query_string_is_a_400(logged_in_client):
    response = logged_in_client.get("/runs/?status=%00")
    assert response.status_code == 400
    assert response.content.decode() == NUL_SENTENCE


@pytest.mark.django_db
def test_a_nul_in_a_form_field_is_a_400(logged_in_client, collection):
    for data in ({"question": "caffeine\x00", "collection": collection.pk}, {"question\x00": "x"}):
        response = logged_in_client.post("/ask", data)
        assert response.status_code == 400
        assert response.content.decode() == NUL_SENTENCE


@pytest.mark.django_db
def test_an_upload_with_nul_bytes_in_its_file_is_not_refused_for_them(logged_in_client, collection):
    from django.core.files.uploadedfile import SimpleUploadedFile

    pdf_like = SimpleUploadedFile("paper.txt", b"Caffeine\x00 and sleep.\n" * 10, content_type="text/plain")
    response = logged_in_client.post(f"/collections/{collection.pk}/upload", {"files": [pdf_like]})
    assert response.content.decode() != NUL_SENTENCE
    assert response.status_code < 500
