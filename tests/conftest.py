"""Shared fixtures: real services (Postgres via pytest-django, Redis, a Celery worker), users, collections."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.real_data import SHARED_DATA, require


def pytest_configure(config: pytest.Config) -> None:
    # Each test session gets its own queue, so a worker from `make run` never takes a test's task.
    os.environ.setdefault("EVIDENCE_TEST_QUEUE", f"evidence-test-{os.getpid()}")
    # The extractive reader answers in tests (and in the app processes they start): the reader model takes seconds
    # a question; its own tests (tests/reader) turn it on.
    os.environ.setdefault("EVIDENCE_READER", "extractive")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Return ../shared/data; a test asking for it is skipped on a clone without it (failed under CI=true)."""
    return require(SHARED_DATA)


@pytest.fixture(autouse=True)
def no_progress_ticks(settings):
    """Progress events come from a thread with its own connection: only tests of them (transactional) turn them
    on, and the app as `make run` starts it (the journey tests) has them as shipped."""
    settings.EVIDENCE_PROGRESS_QUIET_S = 0
    # Likewise background preparation of sentence vectors: its tests turn it on (the journey tests run it as shipped).
    settings.EVIDENCE_PREPARE_IN_BACKGROUND = False
    # The reader model's own tests turn it on (tests/reader); every other test reads with the extractive layer.
    settings.EVIDENCE_READER = os.environ["EVIDENCE_READER"]


@pytest.fixture(scope="session")
def celery_app_for_tests():
    from django.conf import settings

    from researchapp.celery import app

    queue = os.environ["EVIDENCE_TEST_QUEUE"]
    app.conf.task_default_queue = queue
    # System 1 batches go to the same session queue, so the test worker judges them.
    settings.EVIDENCE_JUDGE_QUEUE = queue
    settings.EVIDENCE_PREPARE_QUEUE = queue
    app.conf.task_always_eager = False
    return app


@pytest.fixture(scope="session")
def celery_worker(celery_app_for_tests, django_db_setup, django_db_blocker):
    """A real Celery worker (thread pool) consuming this session's queue on the real Redis broker."""
    from celery.contrib.testing.worker import start_worker

    with (
        django_db_blocker.unblock(),
        start_worker(
            celery_app_for_tests,
            pool="threads",
            concurrency=4,
            perform_ping_check=False,
            loglevel="WARNING",
            queues=[os.environ["EVIDENCE_TEST_QUEUE"]],
            without_heartbeat=False,
            shutdown_timeout=30,
        ) as worker,
    ):
        yield worker


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", "alice-password")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("mallory", "mallory@example.org", "mallory-password")


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def collection(user):
    from evidence.models import Collection

    return Collection.objects.create(owner=user, name="Tiny")


@pytest.fixture
def document(collection):
    from evidence.models import Document

    text = "Caffeine blocks adenosine receptors. It delays sleep onset by about an hour."
    return Document.objects.create(
        collection=collection,
        docid="caffeine",
        title="Caffeine and sleep",
        source_name="caffeine.txt",
        source_format="text",
        sha256="0" * 64,
        text=text,
    )


@pytest.fixture
def run(user, collection):
    from evidence.models import Run

    return Run.objects.create(owner=user, collection=collection, question="Does caffeine delay sleep?")
