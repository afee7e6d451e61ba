"""The collection page's Pi-Serini backend URLs: create (secret shown once), list by prefix, revoke."""

from __future__ import annotations

import pytest

from evidence.models import PiseriniBackend
from evidence.piserini import hash_token

pytestmark = pytest.mark.django_db


def test_it_creates_a_url_and_shows_its_secret_once(logged_in_client, collection):
    page = logged_in_client.get(f"/collections/{collection.pk}/")
    assert page.status_code == 200 and b"Pi-Serini backend URLs" in page.content
    created = logged_in_client.post(f"/collections/{collection.pk}/piserini-urls")
    assert created.status_code == 200 and created["Cache-Control"] == "no-store"
    backend = PiseriniBackend.objects.get(collection=collection)
    html = created.content.decode()
    start = html.index("/api/piserini/b/") + len("/api/piserini/b/")
    token = html[start : html.index("/", start)]
    assert hash_token(token) == backend.token_hash and "http-json" in html
    again = logged_in_client.get(f"/collections/{collection.pk}/").content.decode()
    assert token not in again and backend.prefix in again


def test_it_revokes_a_url(logged_in_client, collection):
    logged_in_client.post(f"/collections/{collection.pk}/piserini-urls")
    backend = PiseriniBackend.objects.get(collection=collection)
    response = logged_in_client.post(f"/piserini-urls/{backend.pk}/revoke")
    assert response.status_code == 302
    backend.refresh_from_db()
    assert backend.revoked_at is not None


def test_another_users_collection_or_url_is_a_404(client, other_user, collection):
    client.force_login(other_user)
    assert client.post(f"/collections/{collection.pk}/piserini-urls").status_code == 404
    backend = PiseriniBackend.objects.create(
        owner=collection.owner, collection=collection, name="x", prefix="pis_abcdefgh", token_hash="0" * 64
    )
    assert client.post(f"/piserini-urls/{backend.pk}/revoke").status_code == 404
    backend.refresh_from_db()
    assert backend.revoked_at is None
