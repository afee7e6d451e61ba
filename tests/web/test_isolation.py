"""Every view hides another user's collection, run, span, upload and document behind a 404."""

from __future__ import annotations

import pytest

from evidence.models import IngestJob

pytestmark = pytest.mark.django_db


@pytest.fixture
def theirs(other_run):
    job = IngestJob.objects.create(owner=other_run.owner, collection=other_run.collection)
    return {"run": other_run, "collection": other_run.collection, "document": other_run.collection.documents.get(),
            "span": other_run.spans.get(), "job": job}


@pytest.mark.parametrize("url", [
    "/runs/{run}/",
    "/runs/{run}/events?after=0",
    "/runs/{run}/audit",
    "/runs/{run}/audit?span={span}",
    "/compare?a={run}&b={mine}",
    "/compare?a={mine}&b={run}",
    "/collections/{collection}/",
    "/uploads/{job}/",
    "/documents/{document}/",
])
def test_it_404s_another_users_objects(logged_in_client, finished_run, theirs, url):
    ids = {key: value.pk for key, value in theirs.items()} | {"mine": finished_run.pk}
    assert logged_in_client.get(url.format(**ids)).status_code == 404


def test_it_404s_an_upload_into_another_users_collection(logged_in_client, theirs):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = logged_in_client.post(f"/collections/{theirs['collection'].pk}/upload",
                                     {"files": [SimpleUploadedFile("a.txt", b"A")]})
    assert response.status_code == 404
    assert IngestJob.objects.count() == 1


def test_it_keeps_other_users_out_of_lists(logged_in_client, finished_run, theirs):
    for url in ("/", "/runs/", "/collections/", "/compare", "/ask"):
        html = logged_in_client.get(url).content.decode()
        assert "Secret" not in html, url

