"""Papers prepared for reading in the background: sentence and paragraph vectors in small resumable chunks, sent
by the worker once a file is indexed, with the collection's "ready for questions" progress on its page and in the
API."""

from __future__ import annotations

import time

import pytest

from evidence.ingest.prepare import KINDS, prepare_all, prepare_some, readiness
from evidence.models import Region
from evidence.services.uploads import start_upload
from tests.ingesting import ingest_now

NOTES = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors. It delays sleep onset by about an "
    b"hour. Coffee after noon keeps many people awake.\n\n## Advice\n\nAvoid coffee late. Tea has less caffeine.\n",
    "exercise.md": b"# Exercise and memory\n\nOne year of walking increased hippocampal volume by two percent. "
    b"Memory improved too.\n",
}


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


def missing(collection) -> int:
    return Region.objects.filter(document__collection=collection, kind__in=KINDS, embedding__isnull=True).count()


@pytest.mark.django_db
def test_preparation_goes_in_small_chunks_that_resume_where_the_last_one_stopped(collection):
    ingest_now(collection, list(NOTES.items()), embed=False)
    documents = list(collection.documents.order_by("pk").values_list("pk", flat=True))
    ready, total = readiness(collection.pk)
    assert ready == 0 and total == missing(collection) > 6
    embedded, remaining = prepare_some(documents, limit=3)
    assert embedded == 3 and remaining and missing(collection) == total - 3
    assert readiness(collection.pk) == (3, total)
    chunks = []
    assert prepare_all(remaining, chunks.append) == total - 3  # picks up where the first chunk stopped
    assert sum(chunks) == total - 3 and missing(collection) == 0
    assert readiness(collection.pk) == (total, total)
    assert prepare_some(documents) == (0, [])  # nothing left: nothing embedded twice


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_the_worker_prepares_an_uploaded_file_for_reading_after_indexing_it(celery_worker, collection, settings):
    settings.EVIDENCE_PREPARE_IN_BACKGROUND = True
    job = start_upload(collection, list(NOTES.items()))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # The two files are parsed in parallel: ready only once both are in and every sentence is prepared.
        job.refresh_from_db()
        ready, total = readiness(collection.pk)
        if job.status == job.Status.DONE and total and ready == total:
            break
        time.sleep(0.2)
    assert job.status == job.Status.DONE and total and ready == total, (job.status, ready, total)
    assert collection.documents.count() == 2


@pytest.mark.django_db
def test_the_collection_page_and_the_api_say_how_far_the_papers_are_prepared(logged_in_client, collection, user):
    ingest_now(collection, list(NOTES.items()), embed=False)
    _, total = readiness(collection.pk)
    page = logged_in_client.get(f"/collections/{collection.pk}/").content.decode()
    assert f"Preparing the papers for reading: 0 of {total} sentences and paragraphs (0%)" in page
    assert f'hx-get="/collections/{collection.pk}/?part=readiness"' in page
    body = logged_in_client.get(f"/api/collections/{collection.pk}").json()
    assert body["prepared"] == {"ready": 0, "total": total, "done": False}
    prepare_all(list(collection.documents.values_list("pk", flat=True)))
    part = logged_in_client.get(f"/collections/{collection.pk}/?part=readiness", HTTP_HX_REQUEST="true")
    assert "ready for questions" in part.content.decode() and "hx-get" not in part.content.decode()
    assert logged_in_client.get(f"/api/collections/{collection.pk}").json()["prepared"]["done"] is True
