"""Service checks for the health endpoint: database, pgvector, the Redis broker and a live Celery worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import redis
from celery import current_app as celery_app
from django.conf import settings
from django.db import connection

# The project's Celery app (researchapp/celery.py) makes itself the current app when the project loads; reading it
# through celery.current_app keeps the app from importing the project package above it.


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


DEADLINE_S = 2.5  # the whole answer comes within this, whatever hangs: a load balancer must not hang with us
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="evidence-health")
_running: dict[str, Future[str]] = {}
_lock = threading.Lock()


def _checked(check: Callable[[], str]) -> str:
    """Run one check in a pool thread and close the database connection the thread opened."""
    try:
        return check()
    finally:
        connection.close()


def run_checks(deadline_s: float = DEADLINE_S) -> dict[str, dict[str, str]]:
    """Run every check at once, each reporting ok with a detail, or error with the reason, within the deadline.

    A check still running at the deadline is reported as hung; while it hangs, later requests report it again
    instead of starting another copy, so a hung service never piles up threads.
    """
    started = time.monotonic()
    with _lock:
        futures = {}
        for name, check in CHECKS.items():
            running = _running.get(name)
            if running is None or running.done():
                running = _running[name] = _pool.submit(_checked, check)
            futures[name] = running
    results: dict[str, dict[str, str]] = {}
    for name, future in futures.items():
        try:
            detail = future.result(timeout=max(0.0, deadline_s - (time.monotonic() - started)))
            results[name] = {"status": "ok", "detail": detail}
        except FutureTimeout:
            results[name] = {"status": "error", "detail": f"no answer within {deadline_s:g} s (the service hangs)"}
        except Exception as error:  # a health endpoint reports every failure instead of raising
            results[name] = {"status": "error", "detail": f"{type(error).__name__}: {error}"}
    return results
