"""Login is required everywhere except the login page and health."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_redirects_anonymous_users_to_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_shows_the_login_page(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b"Log in" in response.content


def test_it_logs_in_and_shows_the_desk(client, user):
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": "alice-password"}, follow=True
    )
    assert response.status_code == 200
    assert b"Your research desk" in response.content


def test_it_reports_a_missing_worker_as_unhealthy(client, monkeypatch):
    from evidence import health

    # The session's test worker may be running; a ping nobody answers is what "no worker" looks like.
    monkeypatch.setattr(health.celery_app.control, "ping", lambda timeout: [])
    response = client.get("/health")
    assert response.status_code == 503
    assert response.json()["checks"]["worker"]["status"] == "error"
