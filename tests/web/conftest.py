"""Fixtures of the browser app's tests: a uvicorn server (SSE needs ASGI), Chromium, finished runs."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls there are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    # The real hasher costs ~0.5 s per user on this machine; these tests are about pages, not passwords.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def start_thread(target) -> threading.Thread:
    """Start target in a thread that closes its own database connection (else the test database stays busy)."""
    from django.db import connection

    def body() -> None:
        try:
            target()
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    return thread


@pytest.fixture
def in_thread():
    return start_thread


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def asgi_server(django_db_setup) -> Iterator[str]:
    """Serve researchapp.asgi:application with uvicorn in a thread; yield its base URL."""
    import uvicorn

    from researchapp.asgi import application

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off", timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            pytest.fail("the test uvicorn server did not start within 10 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=5)
    from evidence.streams import close_readers

    close_readers()  # the stream readers' connections, so the test database can be dropped


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (make browsers)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture
def session_cookie(client, user) -> dict[str, str]:
    """A real session for alice, usable against the uvicorn server."""
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


def make_finished_run(owner, collection, document, question="Does caffeine delay sleep?", system="dual",
                      quote="It delays sleep onset by about an hour."):
    """A finished run written the way the research loop writes one: events, a delivered span, a citation."""
    from django.utils import timezone

    from evidence import streams
    from evidence.models import Run, Span

    start = document.text.index(quote)
    now = timezone.now()
    run = Run.objects.create(owner=owner, collection=collection, question=question, system=system,
                             config={"searcher": "bm25"}, status=Run.Status.RUNNING, started_at=now)
    streams.emit(run.pk, "status", {"status": "running", "system": system, "question": question})
    streams.emit(run.pk, "plan", {"sub_questions": [question], "queries": ["caffeine sleep"]})
    streams.emit(run.pk, "search", {"search_id": "s1", "query": "caffeine sleep", "reason": "find it",
                                   "searcher": "bm25", "total": 1,
                                   "top": [{"rank": 1, "docid": document.docid, "title": document.title,
                                            "score": 3.2, "matched": ["caffeine"], "excerpt": document.text[:80]}]})
    streams.emit(run.pk, "judgment", {"docid": document.docid, "title": document.title, "goal": question,
                                     "probability": 0.91})
    streams.emit(run.pk, "evidence", {"docid": document.docid, "start": start, "end": start + len(quote),
                                     "page": None, "quote": quote, "probability": 0.88, "goal": question})
    span = Span.objects.create(run=run, document=document, start=start, end=start + len(quote), quote=quote,
                               probability=0.88, delivered=True)
    run.citations.create(span=span, answer_part=0, marker=f"[{document.docid}]")
    run.answer = {"explanation": f"{quote} [{document.docid}]", "exact_answer": "Yes", "confidence": 0.88,
                  "dropped_citations": 0, "ranking": []}
    run.trajectory = {"surfaced": [document.docid], "previewed": [document.docid], "opened": [],
                      "inspected": [document.docid], "delivered": [document.docid], "cited": [document.docid]}
    run.status, run.finished_at = Run.Status.ANSWERED, timezone.now()
    run.save(update_fields=["answer", "trajectory", "status", "finished_at"])  # last_seq belongs to emit()
    streams.emit(run.pk, "answer", run.answer)
    streams.emit(run.pk, "finished", {"status": "answered", "error": "", "elapsed_s": 0.5,
                                     "funnel": {k: len(v) for k, v in run.trajectory.items()}})
    run.refresh_from_db()
    return run


@pytest.fixture
def run_factory():
    return make_finished_run


@pytest.fixture
def finished_run(user, collection, document):
    return make_finished_run(user, collection, document)


@pytest.fixture
def other_run(other_user):
    """Mallory's finished run over her own collection and document."""
    from evidence.models import Collection, Document

    collection = Collection.objects.create(owner=other_user, name="Secret")
    document = Document.objects.create(collection=collection, docid="secret", title="Secret doc",
                                       source_name="secret.txt", source_format="text", sha256="1" * 64,
                                       text="The secret: It delays sleep onset by about an hour.")
    return make_finished_run(other_user, collection, document)
