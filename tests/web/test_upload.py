"""Collections and uploads: create, upload many files, the size cap before parsing, CSRF, progress, browse."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evidence.models import Collection, IngestFile, IngestJob, Passage

pytestmark = pytest.mark.django_db


@pytest.fixture
def enqueued(monkeypatch):
    file_ids: list[int] = []
    monkeypatch.setattr("evidence.services.uploads.queue_files", file_ids.extend)
    return file_ids


def test_it_creates_a_collection(logged_in_client, user):
    response = logged_in_client.post("/collections/", {"name": "Papers", "description": "ACL"})
    collection = Collection.objects.get(owner=user, name="Papers")
    assert response["Location"] == f"/collections/{collection.pk}/"


def test_it_refuses_a_duplicate_name(logged_in_client, collection):
    response = logged_in_client.post("/collections/", {"name": "Tiny"})
    assert response.status_code == 400
    assert b"already have a collection" in response.content


def test_it_uploads_many_files_into_one_job(logged_in_client, collection, enqueued):
    files = [SimpleUploadedFile("a.txt", b"Alpha text."), SimpleUploadedFile("b.md", b"# Beta\n\nBody.")]
    response = logged_in_client.post(f"/collections/{collection.pk}/upload", {"files": files})
    job = IngestJob.objects.get()
    assert response["Location"] == f"/uploads/{job.pk}/"
    assert sorted(job.files.values_list("name", flat=True)) == ["a.txt", "b.md"]
    assert enqueued == sorted(job.files.values_list("pk", flat=True))


def test_it_refuses_an_upload_over_the_request_limit_before_reading_it(
    logged_in_client, collection, settings, enqueued
):
    settings.EVIDENCE_MAX_UPLOAD_BYTES = 100
    files = [SimpleUploadedFile("big.txt", b"x" * 500)]
    response = logged_in_client.post(f"/collections/{collection.pk}/upload", {"files": files})
    assert response.status_code == 413
    assert b"larger than the limit" in response.content
    assert not IngestJob.objects.exists()


def test_it_checks_csrf_on_upload(user, collection, enqueued):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(f"/collections/{collection.pk}/upload", {"files": [SimpleUploadedFile("a.txt", b"A")]})
    assert response.status_code == 403
    assert not IngestJob.objects.exists()


def test_it_shows_per_file_progress_and_errors(logged_in_client, collection):
    job = IngestJob.objects.create(
        owner=collection.owner,
        collection=collection,
        status="running",
        files_total=2,
        files_done=1,
        passages_total=10,
        passages_embedded=4,
    )
    IngestFile.objects.create(job=job, name="good.pdf", status="embedding", size=2048)
    IngestFile.objects.create(job=job, name="bad.pdf", status="failed", error="Cannot parse bad.pdf: not a PDF.")
    html = logged_in_client.get(f"/uploads/{job.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in html
    assert "Cannot parse bad.pdf: not a PDF." in html and "1 / 2" in html and "4 / 10" in html
    assert 'aria-valuenow="40"' in html
    fragment = logged_in_client.get(f"/uploads/{job.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<section class="card job" id="progress"')


def test_it_stops_polling_when_the_job_is_done(logged_in_client, collection):
    job = IngestJob.objects.create(
        owner=collection.owner, collection=collection, status="done", files_total=1, files_done=1
    )
    html = logged_in_client.get(f"/uploads/{job.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in html
    assert "Browse the documents" in html


def test_it_lists_documents_and_shows_passages(logged_in_client, document):
    Passage.objects.create(document=document, ordinal=0, start=0, end=36)
    Passage.objects.create(document=document, ordinal=1, start=37, end=len(document.text))
    listing = logged_in_client.get(f"/collections/{document.collection_id}/").content.decode()
    assert "Caffeine and sleep" in listing and f"/documents/{document.pk}/" in listing
    html = logged_in_client.get(f"/documents/{document.pk}/").content.decode()
    assert "passage 0 · characters 0–36" in html and "passage 1 · characters 37–76" in html
    assert "It delays sleep onset by about an hour." in html
