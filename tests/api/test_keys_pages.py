"""The API key pages: a new key is shown once, listed by prefix, revocable; forms need CSRF."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evidence.auth_keys import hash_key
from evidence.models import ApiKey

pytestmark = pytest.mark.django_db


def test_it_shows_a_new_key_once_and_stores_only_its_hash(logged_in_client, user):
    response = logged_in_client.post("/keys/", {"name": "laptop"})
    assert response.status_code == 200
    raw = re.search(r'id="new-key-value">([^<]+)<', response.content.decode()).group(1)
    key = ApiKey.objects.get(owner=user)
    assert key.key_hash == hash_key(raw) and key.name == "laptop"
    assert response["Cache-Control"] == "no-store"
    again = logged_in_client.get("/keys/").content.decode()
    assert raw not in again and key.prefix in again
    assert Client(HTTP_AUTHORIZATION=f"Bearer {raw}").get("/api/runs").status_code == 200


def test_it_revokes_a_key(logged_in_client, user):
    logged_in_client.post("/keys/", {"name": "old"})
    key = ApiKey.objects.get(owner=user)
    response = logged_in_client.post(f"/keys/{key.pk}/revoke", follow=True)
    assert "revoked" in response.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_another_users_key_cannot_be_revoked(logged_in_client, other_user):
    from evidence.auth_keys import create_key

    theirs, _ = create_key(other_user, "theirs")
    logged_in_client.post(f"/keys/{theirs.pk}/revoke")
    theirs.refresh_from_db()
    assert theirs.revoked_at is None
    assert "theirs" not in logged_in_client.get("/keys/").content.decode()


def test_the_key_form_needs_csrf_and_a_login(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post("/keys/", {"name": "x"}).status_code == 403
    anonymous = Client()
    assert anonymous.get("/keys/").status_code == 302
    assert not ApiKey.objects.exists()


def test_key_names_are_escaped(logged_in_client):
    logged_in_client.post("/keys/", {"name": "<script>alert(1)</script>"})
    page = logged_in_client.get("/keys/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
