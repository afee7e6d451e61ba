"""Service checks for the health endpoint: database, pgvector, the Redis broker and a live Celery worker."""

from __future__ import annotations

from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connection

from researchapp.celery import app as celery_app


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        return str(cursor.fetchone()[0]).split(" on ")[0]


def check_vector() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    if row is None:
        raise RuntimeError("the vector extension is not installed in this database")
    return f"pgvector {row[0]}"


def check_broker() -> str:
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)
    client.ping()
    return "redis " + str(client.info("server").get("redis_version", "?"))


def check_worker() -> str:
    replies = celery_app.control.ping(timeout=1.5)
    if not replies:
        raise RuntimeError("no Celery worker answered a ping within 1.5 s")
    return f"{len(replies)} worker(s): " + ", ".join(sorted(name for reply in replies for name in reply))


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "vector": check_vector,
    "broker": check_broker,
    "worker": check_worker,
}


def run_checks() -> dict[str, dict[str, str]]:
    """Run every check; each reports ok with a detail, or error with the reason."""
    results: dict[str, dict[str, str]] = {}
    for name, check in CHECKS.items():
        try:
            results[name] = {"status": "ok", "detail": check()}
        except Exception as error:  # a health endpoint reports every failure instead of raising
            results[name] = {"status": "error", "detail": f"{type(error).__name__}: {error}"}
    return results
