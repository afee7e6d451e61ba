"""Collections and uploads through the API: create, list, upload files, follow ingestion progress."""

from __future__ import annotations

import pytest

from evidence.ingest import jobs
from evidence.models import Collection, IngestJob

pytestmark = pytest.mark.django_db


def test_it_creates_and_lists_collections(api, user):
    created = api.post("/api/collections", {"name": "Papers", "description": "mine"}, content_type="application/json")
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "Papers" and body["documents"] == 0
    assert Collection.objects.get(pk=body["id"]).owner == user
    listed = api.get("/api/collections").json()
    assert listed["count"] == 1 and listed["items"][0]["id"] == body["id"]


def test_a_duplicate_name_is_a_conflict(api, collection):
    response = api.post("/api/collections", {"name": collection.name}, content_type="application/json")
    assert response.status_code == 409


@pytest.mark.parametrize("name", ["", "   "])
def test_bad_names_are_refused_with_422(api, name):
    assert api.post("/api/collections", {"name": name}, content_type="application/json").status_code == 422


def test_a_nul_byte_in_a_name_is_refused_with_a_plain_400(api):
    response = api.post("/api/collections", {"name": "bad\x00name"}, content_type="application/json")
    assert response.status_code == 400 and "NUL byte" in response.json()["detail"]


def test_lists_are_paged(api, user):
    for i in range(5):
        Collection.objects.create(owner=user, name=f"c{i}")
    page = api.get("/api/collections?limit=2&offset=2").json()
    assert page["count"] == 5 and [c["name"] for c in page["items"]] == ["c2", "c3"]
    assert api.get("/api/collections?limit=0").status_code == 422


def test_it_uploads_files_and_reports_progress(api, collection, queued):
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [
        SimpleUploadedFile("a.md", b"# Alpha\n\nAlpha text about sleep.\n"),
        SimpleUploadedFile("b.txt", b"Beta text about coffee.\n"),
    ]
    response = api.post(f"/api/collections/{collection.pk}/files", {"files": files})
    assert response.status_code == 202, response.content
    upload = response.json()
    assert upload["files_total"] == 2 and [f["status"] for f in upload["files"]] == ["queued", "queued"]
    assert queued["ingest"] == [f["id"] for f in upload["files"]]
    jobs.process_all(IngestJob.objects.get(pk=upload["id"]), embed=False)
    progress = api.get(f"/api/uploads/{upload['id']}").json()
    assert progress["status"] == "done" and progress["documents_added"] == 2
    assert {f["status"] for f in progress["files"]} == {"done"}
    assert api.get(f"/api/collections/{collection.pk}/documents").json()["count"] == 2


def test_an_upload_without_files_is_a_400(api, collection):
    response = api.post(f"/api/collections/{collection.pk}/files", {"other": "x"})
    assert response.status_code == 400 and "files" in response.json()["detail"]


def test_an_oversized_upload_is_refused_from_its_content_length_before_parsing(api, collection, settings, monkeypatch):
    settings.EVIDENCE_MAX_UPLOAD_BYTES = 1000

    def never(*args, **kwargs):
        raise AssertionError("the body must not be parsed")

    monkeypatch.setattr("django.http.request.HttpRequest._load_post_and_files", never)
    response = api.post(f"/api/collections/{collection.pk}/files", {"files": [_big(5000)]})
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]
    assert not IngestJob.objects.exists()


def _big(size: int):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("big.txt", b"x" * size)


def test_a_file_over_the_per_file_limit_fails_without_parsing(api, collection, settings):
    settings.EVIDENCE_MAX_FILE_BYTES = 100
    response = api.post(f"/api/collections/{collection.pk}/files", {"files": [_big(500)]})
    assert response.status_code == 202
    assert response.json()["files"][0]["status"] == "failed"
    assert "larger than the limit" in response.json()["files"][0]["error"]
