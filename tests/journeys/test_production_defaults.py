"""`make run` serves with production-safe defaults: no debug pages, a plain 404, a secret kept in the data folder."""

from __future__ import annotations

import stat

import httpx
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.journey]


def test_make_run_serves_without_debug_and_keeps_a_private_secret(shipped_app):
    response = httpx.get(f"{shipped_app.base_url}/no/such/page/", follow_redirects=False, timeout=10)
    login = httpx.get(f"{shipped_app.base_url}/accounts/login/", timeout=10)
    assert login.status_code == 200
    # Logged out, an unknown page redirects to the login page; either way no URL list, no debug page.
    assert response.status_code in (302, 404)
    for body in (response.text, login.text):
        assert "URLconf" not in body and "DEBUG = True" not in body and "Traceback" not in body
    with httpx.Client(base_url=shipped_app.base_url, timeout=10) as client:
        client.get("/accounts/login/")
        token = client.cookies["csrftoken"]
        client.post(
            "/accounts/login/", data={"username": "demo", "password": "demo-password", "csrfmiddlewaretoken": token}
        )
        missing = client.get("/no/such/page/")
    assert missing.status_code == 404
    assert "Page not found" in missing.text and "URLconf" not in missing.text
    secret = shipped_app.data_dir / "secret_key"
    assert secret.exists() and len(secret.read_text().strip()) >= 50
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert httpx.get(f"{shipped_app.base_url}/live", timeout=5).json() == {"status": "ok"}
