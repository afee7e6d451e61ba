"""API authentication: keys (Bearer or X-API-Key), sessions with CSRF, JSON 401s instead of login redirects."""

from __future__ import annotations

import pytest
from django.test import Client

from evidence.auth_keys import create_key, hash_key, revoke_key
from evidence.models import ApiKey

pytestmark = pytest.mark.django_db


def test_it_answers_401_json_without_credentials(client):
    response = client.get("/api/runs")
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert "API key" in response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_it_accepts_a_bearer_key_and_an_x_api_key_header(user, alice_key):
    assert Client(HTTP_AUTHORIZATION=f"Bearer {alice_key}").get("/api/runs").status_code == 200
    assert Client(HTTP_X_API_KEY=alice_key).get("/api/runs").status_code == 200


def test_it_refuses_unknown_and_revoked_keys(user):
    key, raw = create_key(user, "soon revoked")
    assert Client(HTTP_AUTHORIZATION="Bearer evd_not-a-key").get("/api/runs").status_code == 401
    assert revoke_key(user, key.pk)
    response = Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/runs")
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]


def test_keys_are_stored_hashed_and_record_their_last_use(user):
    key, raw = create_key(user, "script")
    stored = ApiKey.objects.get(pk=key.pk)
    assert stored.key_hash == hash_key(raw) and raw not in (stored.key_hash, stored.prefix)
    assert raw.startswith(stored.prefix) and len(stored.prefix) == 12
    assert stored.last_used_at is None
    Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/runs")
    stored.refresh_from_db()
    assert stored.last_used_at is not None


def test_another_users_revocation_does_nothing(user, other_user):
    key, _ = create_key(user, "mine")
    assert not revoke_key(other_user, key.pk)


def test_a_session_can_read_and_writes_need_the_csrf_token(user, collection, document):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.get("/api/collections").status_code == 200
    refused = browser.post("/api/collections", {"name": "New"}, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    browser.get("/keys/")  # a page with a form sets the csrftoken cookie
    token = browser.cookies["csrftoken"].value
    accepted = browser.post("/api/collections", {"name": "New"}, content_type="application/json",
                            HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201


def test_a_key_needs_no_csrf_token(user, alice_key):
    scripted = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {alice_key}")
    assert scripted.post("/api/collections", {"name": "Scripted"}, content_type="application/json").status_code == 201


def test_the_docs_need_a_login_and_the_schema_a_login_or_key(client, user, alice_key):
    docs = client.get("/api/docs")
    assert docs.status_code == 302 and "/accounts/login/" in docs["Location"]
    assert client.get("/api/openapi.json").status_code == 401
    assert Client(HTTP_AUTHORIZATION=f"Bearer {alice_key}").get("/api/openapi.json").status_code == 200
    client.force_login(user)
    assert client.get("/api/docs").status_code == 200
    schema = client.get("/api/openapi.json").json()
    assert schema["info"]["title"] == "Evidence desk API"
