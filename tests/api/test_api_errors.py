"""API errors never carry a traceback, even in debug; a NUL byte anywhere in the input is a plain 400."""

from __future__ import annotations

import json

import pytest

from evidence.errors import CRASH_SENTENCE, NUL_SENTENCE


@pytest.fixture(autouse=True)
def debug_on(settings):
    settings.DEBUG = True  # what DJANGO_DEBUG=1 sets: the mode that used to answer with tracebacks


def assert_plain(response, status: int, sentence: str) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": sentence}
    assert b"Traceback" not in response.content and b'File "' not in response.content


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["status=%00", "status=queued%00", "limit=1&status=a%00b"])
def test_it_answers_a_nul_in_the_query_string_with_400(api, query):
    assert_plain(api.get(f"/api/runs?{query}"), 400, NUL_SENTENCE)


@pytest.mark.django_db
def test_it_answers_a_nul_in_a_json_body_with_400(api, collection):
    for body in ({"docid": "doc\u0000", "offset": 0, "limit": 5}, {"doc\u0000id": "x"}, {"a": ["ok", "b\u0000"]}):
        response = api.post(
            f"/api/piserini/{collection.pk}/read", data=json.dumps(body), content_type="application/json"
        )
        assert_plain(response, 400, NUL_SENTENCE)


@pytest.mark.django_db
def test_an_escaped_backslash_u_is_not_a_nul(api, collection):
    body = json.dumps({"docid": "\\u0000", "offset": 0, "limit": 5})  # the six characters, not a NUL
    response = api.post(f"/api/piserini/{collection.pk}/read", data=body, content_type="application/json")
    assert response.status_code != 400 or response.json()["detail"] != NUL_SENTENCE
    assert response.status_code < 500


@pytest.mark.django_db
def test_it_answers_a_nul_in_the_path_with_400(api):
    assert_plain(api.get("/api/piserini/a%00b/capabilities"), 400, NUL_SENTENCE)


@pytest.mark.django_db
def test_an_unexpected_error_is_a_json_500_without_a_traceback(api, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("internal detail that must stay in the log")

    monkeypatch.setattr("evidence.api.common.paged", broken)
    response = api.get("/api/runs")

    request_id = response["X-Request-ID"]
    assert response.status_code == 500 and response.json() == {
        "detail": f"{CRASH_SENTENCE} (request id {request_id})", "request_id": request_id}
    assert b"Traceback" not in response.content and b"internal detail" not in response.content
    assert any("internal detail" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)


@pytest.mark.django_db
def test_a_database_outage_is_still_a_503(api, monkeypatch):
    from django.db import OperationalError

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("evidence.api.common.paged", down)
    response = api.get("/api/runs")
    assert response.status_code == 503
    assert response["Retry-After"]
