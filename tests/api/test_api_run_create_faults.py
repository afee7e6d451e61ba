"""Creating a run when the broker is down (a fast 503, no run left queued) and retrying with an Idempotency-Key."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from evidence.models import Run
from evidence.services import queueing
from researchapp.celery import app

pytestmark = pytest.mark.django_db


def post_run(client, collection, key: str | None = None, question: str = "Does caffeine delay sleep?"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    body = {"collection_id": collection.pk, "question": question, "system": "single_pass"}
    return client.post("/api/runs", body, content_type="application/json", **headers)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket closes


@pytest.fixture
def silent_broker() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung or half-open Redis)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


REAL_ENQUEUE = queueing.enqueue_run  # taken at import, before the conftest's fixture replaces it


@pytest.fixture
def real_queue(monkeypatch):
    """Publish for real (the API tests' conftest records runs instead)."""
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", REAL_ENQUEUE)


def point_broker_at(monkeypatch, port: int) -> None:
    """Point the broker and the result backend (one Redis in this project) at the port, as if Redis were down."""
    url = f"redis://127.0.0.1:{port}/0"
    monkeypatch.setattr(app.conf, "broker_url", url)
    monkeypatch.setattr(app.conf, "result_backend", url)
    monkeypatch.setattr(app, "_backend_cache", app._get_backend())


@pytest.mark.parametrize("broker", ["closed", "silent"])
def test_a_broker_that_is_down_is_a_503_with_retry_after_within_2_s(
    api, collection, document, real_queue, monkeypatch, silent_broker, broker
):
    point_broker_at(monkeypatch, closed_port() if broker == "closed" else silent_broker)
    from evidence import tasks  # noqa: F401

    started = time.perf_counter()
    response = post_run(api, collection, key="retry-me")
    elapsed = time.perf_counter() - started

    assert response.status_code == 503
    assert response["Retry-After"] == str(queueing.RETRY_AFTER_S)
    assert response.json() == {"detail": queueing.QUEUE_DOWN}
    assert elapsed < 2.0, f"the 503 took {elapsed:.2f} s"
    assert not Run.objects.exists()  # refused: no run is left in the owner's list, and the key is free


def test_a_retry_after_the_503_starts_the_run(api, collection, document, real_queue, monkeypatch, queued):
    point_broker_at(monkeypatch, closed_port())
    assert post_run(api, collection, key="k1").status_code == 503
    monkeypatch.setattr("evidence.services.queueing.enqueue_run", queued["runs"].append)  # the broker is back

    response = post_run(api, collection, key="k1")

    assert response.status_code == 201
    assert queued["runs"] == [response.json()["id"]]
    assert Run.objects.get(idempotency_key="k1").status == Run.Status.QUEUED


def test_the_same_idempotency_key_twice_returns_the_same_run(api, collection, document, queued):
    first = post_run(api, collection, key="3f1c-create-once")
    again = post_run(api, collection, key="3f1c-create-once")

    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert Run.objects.count() == 1
    assert queued["runs"] == [first.json()["id"]]  # queued once


def test_without_a_key_each_post_is_a_new_run(api, collection, document):
    assert post_run(api, collection).json()["id"] != post_run(api, collection).json()["id"]
    assert Run.objects.count() == 2


def test_a_key_reused_for_a_different_question_is_a_409(api, collection, document):
    assert post_run(api, collection, key="k").status_code == 201
    response = post_run(api, collection, key="k", question="Does exercise help memory?")
    assert response.status_code == 409
    assert "different run" in response.json()["detail"]
    assert Run.objects.count() == 1


def test_keys_are_per_owner(api, mallory_api, collection, document, other_user):
    from evidence.models import Collection, Document

    theirs = Collection.objects.create(owner=other_user, name="theirs")
    Document.objects.create(
        collection=theirs,
        docid="d",
        title="t",
        source_name="d.txt",
        source_format="text",
        sha256="1" * 64,
        text="Some text.",
    )
    mine = post_run(api, collection, key="shared-key")
    other = post_run(mallory_api, theirs, key="shared-key")
    assert mine.status_code == other.status_code == 201
    assert mine.json()["id"] != other.json()["id"]


def test_an_unprintable_key_is_a_400(api, collection, document):
    assert post_run(api, collection, key="x" * 201).status_code == 400
    assert Run.objects.count() == 0
