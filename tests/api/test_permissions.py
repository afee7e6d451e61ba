"""Every API object belongs to its owner: another user's collection, upload, document, run or evaluation is a 404."""

from __future__ import annotations

import pytest

from evidence.ingest import jobs
from evidence.models import Evaluation, Run
from tests.api.helpers import finished_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices(user, collection, document):
    run = finished_run(user, collection, document)
    job = jobs.create_job(collection, [("a.txt", b"Alpha text.")])
    evaluation = Evaluation.objects.create(owner=user, benchmark="scifact", system="dual", key="k")
    return {"collection": collection.pk, "document": document.pk, "run": run.pk, "upload": job.pk,
            "evaluation": evaluation.pk}


READS = [
    "/api/collections/{collection}",
    "/api/collections/{collection}/documents",
    "/api/uploads/{upload}",
    "/api/documents/{document}",
    "/api/documents/{document}/text",
    "/api/documents/{document}/passages",
    "/api/documents/{document}/spans",
    "/api/runs/{run}",
    "/api/runs/{run}/events",
    "/api/runs/{run}/answer",
    "/api/runs/{run}/spans",
    "/api/compare?a={run}&b={run}",
    "/api/evaluations/{evaluation}",
]


@pytest.mark.parametrize("template", READS)
def test_another_users_object_is_404_to_read(template, alices, api, mallory_api):
    url = template.format(**alices)
    assert api.get(url).status_code == 200
    response = mallory_api.get(url)
    assert response.status_code == 404
    assert response.json()["detail"].startswith("No such")


def test_another_users_run_is_404_to_stream(alices, mallory_api):
    assert mallory_api.get(f"/api/runs/{alices['run']}/stream").status_code == 404


def test_another_users_run_is_404_to_cancel(user, run, mallory_api):
    assert mallory_api.post(f"/api/runs/{run.pk}/cancel").status_code == 404
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED


def test_another_users_collection_is_404_to_upload_or_ask(alices, mallory_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = mallory_api.post(f"/api/collections/{alices['collection']}/files",
                              {"files": [SimpleUploadedFile("m.txt", b"mine now")]})
    assert upload.status_code == 404
    ask = mallory_api.post("/api/runs", {"collection_id": alices["collection"], "question": "Secrets?"},
                           content_type="application/json")
    assert ask.status_code == 404
    assert not Run.objects.filter(owner__username="mallory").exists()


def test_lists_show_only_ones_own_objects(alices, mallory_api):
    for url in ("/api/collections", "/api/runs", "/api/uploads", "/api/evaluations"):
        assert mallory_api.get(url).json()["count"] == 0, url


def test_the_compare_of_an_own_and_a_foreign_run_is_404(alices, other_user, mallory_api):
    from evidence.models import Collection

    theirs = Collection.objects.create(owner=other_user, name="M")
    own = Run.objects.create(owner=other_user, collection=theirs, question="q")
    assert mallory_api.get(f"/api/compare?a={own.pk}&b={alices['run']}").status_code == 404
