"""API test fixtures: the test URLs (API mounted), no real task queueing, keys and key-authenticated clients."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture(autouse=True)
def api_urls(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    # The user fixtures hash passwords; the production hasher costs ~0.5 s a user, which these tests don't test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def queued(monkeypatch) -> dict[str, list[int]]:
    """Record what the API would queue instead of sending it (no worker takes these tests' tasks)."""
    sent: dict[str, list[int]] = {"runs": [], "ingest": []}
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", sent["runs"].append)
    monkeypatch.setattr("evidence.services.uploads.queue_files", sent["ingest"].extend)
    return sent


@pytest.fixture
def alice_key(user) -> str:
    from evidence.auth_keys import create_key

    return create_key(user, "tests", rate_per_minute=10_000)[1]


@pytest.fixture
def mallory_key(other_user) -> str:
    from evidence.auth_keys import create_key

    return create_key(other_user, "tests", rate_per_minute=10_000)[1]


@pytest.fixture
def api(alice_key) -> Client:
    """A client authenticated as alice by API key."""
    return Client(HTTP_AUTHORIZATION=f"Bearer {alice_key}")


@pytest.fixture
def mallory_api(mallory_key) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {mallory_key}")
