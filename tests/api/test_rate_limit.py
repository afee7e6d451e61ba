"""Per-key token buckets in Redis: capacity = rate per minute, 429 with an integer Retry-After past it."""

from __future__ import annotations

import time
import uuid

import pytest
from django.test import Client

from evidence import ratelimit
from evidence.auth_keys import create_key

pytestmark = pytest.mark.django_db


def test_a_key_over_its_rate_gets_429_with_retry_after(user):
    _, raw = create_key(user, "slow", rate_per_minute=3)
    scripted = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert [scripted.get("/api/runs").status_code for _ in range(3)] == [200, 200, 200]
    refused = scripted.get("/api/runs")
    assert refused.status_code == 429
    assert refused["Retry-After"].isdigit() and 1 <= int(refused["Retry-After"]) <= 20
    assert "Rate limit" in refused.json()["detail"]


def test_each_key_has_its_own_bucket(user):
    _, first = create_key(user, "one", rate_per_minute=1)
    _, second = create_key(user, "two", rate_per_minute=1)
    assert Client(HTTP_AUTHORIZATION=f"Bearer {first}").get("/api/runs").status_code == 200
    assert Client(HTTP_AUTHORIZATION=f"Bearer {first}").get("/api/runs").status_code == 429
    assert Client(HTTP_AUTHORIZATION=f"Bearer {second}").get("/api/runs").status_code == 200


def test_the_bucket_refills_continuously():
    bucket = f"evidence:ratelimit:test:{uuid.uuid4()}"
    taken = [ratelimit.take(bucket, 120).allowed for _ in range(121)]  # capacity 120, refill 2 a second
    assert taken.count(False) >= 1
    time.sleep(0.6)
    assert ratelimit.take(bucket, 120).allowed


def test_the_wait_is_whole_seconds_and_at_least_one():
    bucket = f"evidence:ratelimit:test:{uuid.uuid4()}"
    assert ratelimit.take(bucket, 1).allowed
    refused = ratelimit.take(bucket, 1)
    assert not refused.allowed and refused.retry_after_s == 60


def test_redis_down_fails_open(monkeypatch, user):
    dead = ratelimit.connect("redis://127.0.0.1:1/0")
    monkeypatch.setattr(ratelimit, "_script", lambda: dead.register_script(ratelimit.TAKE))
    monkeypatch.setattr(ratelimit, "_down_until", 0.0)
    _, raw = create_key(user, "during an outage", rate_per_minute=1)
    scripted = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert [scripted.get("/api/runs").status_code for _ in range(3)] == [200, 200, 200]
