"""Documents through the API: metadata, canonical text slices, passages and spans, all exact offsets."""

from __future__ import annotations

import pytest

from evidence.models import Passage
from tests.api.helpers import finished_run

pytestmark = pytest.mark.django_db


def test_it_returns_text_slices_by_offsets(api, document):
    whole = api.get(f"/api/documents/{document.pk}/text").json()
    assert whole["text"] == document.text and whole["length"] == len(document.text)
    part = api.get(f"/api/documents/{document.pk}/text?start=9&end=15").json()
    assert part["text"] == document.text[9:15] == "blocks"
    clipped = api.get(f"/api/documents/{document.pk}/text?start=70&end=100000").json()
    assert clipped["text"] == document.text[70:] and clipped["end"] == len(document.text)


def test_it_lists_passages_with_their_text(api, document):
    Passage.objects.create(document=document, ordinal=0, start=0, end=36)
    page = api.get(f"/api/documents/{document.pk}/passages").json()
    assert page["count"] == 1 and page["items"][0]["text"] == document.text[0:36]


def test_it_lists_the_spans_found_in_a_document(api, user, collection, document):
    finished_run(user, collection, document)
    page = api.get(f"/api/documents/{document.pk}/spans").json()
    (span,) = page["items"]
    assert document.text[span["start"] : span["end"]] == span["quote"]


def test_document_metadata_keeps_text_out(api, document):
    body = api.get(f"/api/documents/{document.pk}").json()
    assert body["docid"] == "caffeine" and body["length"] == len(document.text) and "text" not in body


def test_markup_in_document_text_is_data_not_html(api, collection):
    from evidence.models import Document

    hostile = Document.objects.create(collection=collection, docid="x", title="<script>alert(1)</script>",
                                      source_name="x.html", source_format="html", sha256="1" * 64,
                                      text="<img src=x onerror=alert(1)>")
    response = api.get(f"/api/documents/{hostile.pk}/text")
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["text"] == "<img src=x onerror=alert(1)>"
