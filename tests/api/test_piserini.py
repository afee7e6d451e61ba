"""The Pi-Serini http-json backend over a collection: its contract, pagination, strict requests and isolation."""

from __future__ import annotations

import pytest

from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

DOCS = {
    f"note-{n}.md": f"# Note {n}\n\nCaffeine study number {n} about sleep and adenosine.\n".encode() for n in range(14)
}


@pytest.fixture
def indexed(collection):
    ingest_now(collection, DOCS.items(), embed=False)
    return collection


def test_it_describes_its_capabilities(api, indexed):
    body = api.get(f"/api/piserini/{indexed.pk}/capabilities").json()
    assert body["supportsScore"] and body["supportsSnippets"] and body["supportsExactTotalHits"]
    assert set(body) == {
        "backendId",
        "supportsScore",
        "supportsSnippets",
        "supportsExactTotalHits",
        "maxPageSize",
        "maxReadLimit",
    }


def test_it_pages_through_hits_with_one_based_offsets(api, indexed):
    first = api.post(
        f"/api/piserini/{indexed.pk}/search", {"query": "caffeine sleep", "limit": 10}, content_type="application/json"
    ).json()
    assert first["totalHits"] == 14 and len(first["hits"]) == 10 and first["hasMore"] and first["nextOffset"] == 11
    hit = first["hits"][0]
    assert set(hit) <= {"docid", "score", "title", "snippet", "snippetTruncated", "metadata"}
    rest = api.post(
        f"/api/piserini/{indexed.pk}/search",
        {"query": "caffeine sleep", "offset": 11, "limit": 10},
        content_type="application/json",
    ).json()
    assert len(rest["hits"]) == 4 and not rest["hasMore"] and "nextOffset" not in rest
    assert not {h["docid"] for h in first["hits"]} & {h["docid"] for h in rest["hits"]}


def test_it_reads_documents_by_lines(api, indexed):
    found = api.post(
        f"/api/piserini/{indexed.pk}/read",
        {"docid": "note-3", "offset": 1, "limit": 1},
        content_type="application/json",
    ).json()
    assert found["found"] and found["text"] == "Note 3" and found["truncated"] and found["nextOffset"] == 2
    assert found["returnedOffsetStart"] == 1 and found["returnedOffsetEnd"] == 1 and found["totalUnits"] == 3
    missing = api.post(f"/api/piserini/{indexed.pk}/read", {"docid": "nope"}, content_type="application/json").json()
    assert missing == {"found": False, "docid": "nope"}


def test_it_refuses_extra_properties(api, indexed):
    response = api.post(
        f"/api/piserini/{indexed.pk}/search",
        {"query": "x", "limit": 5, "mode": "fancy"},
        content_type="application/json",
    )
    assert response.status_code == 422


def test_another_users_collection_is_a_404(mallory_api, indexed):
    assert mallory_api.get(f"/api/piserini/{indexed.pk}/capabilities").status_code == 404
    response = mallory_api.post(
        f"/api/piserini/{indexed.pk}/search", {"query": "caffeine", "limit": 5}, content_type="application/json"
    )
    assert response.status_code == 404
