"""The Pi-Serini http-json backend: the documented contract, as its shipped adapter calls it (no headers)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client

from evidence.models import PiseriniBackend
from evidence.piserini import create_backend, hash_token
from tests.api.piserini_contract import CAPABILITIES, problems, read_problems, search_problems
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

DOCS = {
    f"note-{n}.md": f"# Note {n}\n\nCaffeine study number {n} about sleep and adenosine.\n".encode() for n in range(14)
}
JSON = "application/json"


@pytest.fixture
def indexed(collection):
    ingest_now(collection, DOCS.items(), embed=False)
    return collection


@pytest.fixture
def backend_url(indexed) -> str:
    """A secret backend URL's path, as Pi-Serini's config would hold it."""
    _backend, token = create_backend(indexed, "agent")
    return f"/api/piserini/b/{token}/"


def adapter() -> Client:
    """A client like Pi-Serini's adapter: it sends content-type and nothing else (no auth, no cookies)."""
    return Client(enforce_csrf_checks=True)


def post(client: Client, url: str, body: dict, **extra):
    return client.post(url, json.dumps(body), content_type=JSON, **extra)


# ------------------------------------------------------------------ the contract, with no headers


def test_it_serves_the_shipped_adapter_without_headers(backend_url):
    client = adapter()
    capabilities = client.get(backend_url + "capabilities")
    assert capabilities.status_code == 200
    assert problems(capabilities.json(), CAPABILITIES) == []
    assert capabilities.json()["maxPageSize"] >= 1000
    # Pi-Serini's search tool always asks for its cache depth, 1,000 hits.
    search = post(client, backend_url + "search", {"query": "caffeine sleep", "limit": 1000})
    assert search.status_code == 200, search.content
    body = search.json()
    assert search_problems(body) == []
    assert body["totalHits"] == 14 and len(body["hits"]) == 14 and body["hasMore"] is False
    assert "nextOffset" not in body
    assert isinstance(body["timingMs"], dict) and body["timingMs"]["request"] >= 0
    read = post(client, backend_url + "read", {"docid": body["hits"][0]["docid"], "offset": 1, "limit": 200})
    assert read.status_code == 200 and read_problems(read.json()) == []
    assert read.json()["found"] is True


def test_search_pages_with_one_based_offsets(backend_url):
    client = adapter()
    first = post(client, backend_url + "search", {"query": "caffeine sleep", "limit": 10}).json()
    assert search_problems(first) == []
    assert first["totalHits"] == 14 and len(first["hits"]) == 10 and first["hasMore"] and first["nextOffset"] == 11
    rest = post(client, backend_url + "search", {"query": "caffeine sleep", "offset": 11, "limit": 10}).json()
    assert search_problems(rest) == []
    assert len(rest["hits"]) == 4 and not rest["hasMore"] and "nextOffset" not in rest
    assert not {h["docid"] for h in first["hits"]} & {h["docid"] for h in rest["hits"]}
    whole = post(client, backend_url + "search", {"query": "caffeine sleep", "limit": 1000}).json()
    assert [h["docid"] for h in whole["hits"]] == [h["docid"] for h in first["hits"] + rest["hits"]]
    scores = [h["score"] for h in whole["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_limits_past_the_maxima_are_clamped_not_refused(backend_url):
    client = adapter()
    search = post(client, backend_url + "search", {"query": "caffeine", "limit": 50_000})
    assert search.status_code == 200 and search_problems(search.json()) == []
    read = post(client, backend_url + "read", {"docid": "note-3", "limit": 5000})
    assert read.status_code == 200 and read_problems(read.json()) == []
    assert read.json()["limit"] == 500  # the continuation call Pi-Serini writes uses this limit


def test_it_reads_documents_by_lines(backend_url):
    client = adapter()
    found = post(client, backend_url + "read", {"docid": "note-3", "offset": 1, "limit": 1}).json()
    assert read_problems(found) == []
    assert found["found"] and found["text"] == "Note 3" and found["truncated"] and found["nextOffset"] == 2
    assert found["returnedOffsetStart"] == 1 and found["returnedOffsetEnd"] == 1 and found["totalUnits"] == 3
    rest = post(client, backend_url + "read", {"docid": "note-3", "offset": 2}).json()
    assert read_problems(rest) == []
    assert rest["returnedOffsetStart"] == 2 and rest["returnedOffsetEnd"] == 3 and not rest["truncated"]
    assert "nextOffset" not in rest
    missing = post(client, backend_url + "read", {"docid": "nope"}).json()
    assert read_problems(missing) == [] and missing["found"] is False and missing["docid"] == "nope"


def test_reading_past_the_end_is_a_valid_empty_read(backend_url):
    body = post(adapter(), backend_url + "read", {"docid": "note-3", "offset": 296, "limit": 200}).json()
    assert read_problems(body) == []
    assert body["found"] is True and body["text"] == "" and body["truncated"] is False
    assert body["totalUnits"] == 3 and "nextOffset" not in body


def test_it_refuses_extra_properties(backend_url):
    response = post(adapter(), backend_url + "search", {"query": "x", "limit": 5, "mode": "fancy"})
    assert response.status_code == 422


# ------------------------------------------------------------------ the secret URL


def test_the_token_is_stored_hashed_only(indexed):
    backend, token = create_backend(indexed, "agent")
    row = PiseriniBackend.objects.get(pk=backend.pk)
    assert row.token_hash == hash_token(token) and token not in (row.prefix, row.name, row.token_hash)
    assert token.startswith(row.prefix)


def test_an_unknown_or_revoked_url_is_refused(backend_url, user):
    client = adapter()
    assert client.get("/api/piserini/b/pis_unknown/capabilities").status_code == 401
    PiseriniBackend.objects.update(revoked_at="2020-01-01T00:00:00Z")
    assert client.get(backend_url + "capabilities").status_code == 401


def test_only_loopback_clients_by_default(backend_url, settings):
    client = adapter()
    assert client.get(backend_url + "capabilities", REMOTE_ADDR="203.0.113.9").status_code == 403
    assert client.get(backend_url + "capabilities", REMOTE_ADDR="::1").status_code == 200
    settings.EVIDENCE_PISERINI_ALLOW_REMOTE = True
    assert client.get(backend_url + "capabilities", REMOTE_ADDR="203.0.113.9").status_code == 200


def test_over_the_rate_it_says_when_to_retry(backend_url, settings):
    settings.EVIDENCE_PISERINI_RATE_PER_MINUTE = 2
    client = adapter()
    assert [client.get(backend_url + "capabilities").status_code for _ in range(2)] == [200, 200]
    refused = client.get(backend_url + "capabilities")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1


def test_the_agent_rate_is_generous_by_default(settings):
    # One Pi-Serini turn is a search plus a few reads; an agent must not hit 429 in normal use.
    assert settings.EVIDENCE_PISERINI_RATE_PER_MINUTE >= 1000


# ------------------------------------------------------------------ the authenticated route


def test_a_collection_is_addressed_by_id_or_name(api, indexed):
    by_id = post(api, f"/api/piserini/{indexed.pk}/search", {"query": "caffeine", "limit": 1000})
    by_name = post(api, f"/api/piserini/{indexed.name}/search", {"query": "caffeine", "limit": 1000})
    assert by_id.status_code == by_name.status_code == 200
    assert [h["docid"] for h in by_id.json()["hits"]] == [h["docid"] for h in by_name.json()["hits"]]
    assert search_problems(by_name.json()) == []
    assert api.get(f"/api/piserini/{indexed.name}/capabilities").json()["maxPageSize"] == 1000


def test_a_collection_named_by_a_superscript_digit_is_a_404_not_a_500(api, indexed):
    # "²".isdigit() is true but int("²") fails: found by schemathesis (POST /api/piserini/%C2%B2/read).
    for name in ("²", "³", "٣"):
        response = post(api, f"/api/piserini/{name}/read", {"docid": "x"})
        assert response.status_code == 404, (name, response.content)


def test_an_empty_collection_searches_to_zero_hits_on_both_routes(api, collection):
    _backend, token = create_backend(collection, "agent")
    for url in (f"/api/piserini/{collection.pk}/search", f"/api/piserini/b/{token}/search"):
        client = api if "/b/" not in url else adapter()
        response = post(client, url, {"query": "caffeine", "offset": 1, "limit": 1000})
        assert response.status_code == 200, response.content
        body = response.json()
        assert (body["hits"], body["totalHits"], body["hasMore"]) == ([], 0, False)
        assert "nextOffset" not in body and search_problems(body) == []
    read = post(adapter(), f"/api/piserini/b/{token}/read", {"docid": "nothing"})
    assert read.status_code == 200 and read.json()["found"] is False


def test_another_users_collection_is_a_404(mallory_api, indexed):
    assert mallory_api.get(f"/api/piserini/{indexed.pk}/capabilities").status_code == 404
    assert mallory_api.get(f"/api/piserini/{indexed.name}/capabilities").status_code == 404
    response = post(mallory_api, f"/api/piserini/{indexed.pk}/search", {"query": "caffeine", "limit": 5})
    assert response.status_code == 404


# ------------------------------------------------------------------ managing backend URLs


def test_it_creates_lists_and_revokes_backend_urls(api, indexed):
    created = post(api, f"/api/collections/{indexed.pk}/piserini-urls", {"name": "bench"})
    assert created.status_code == 201
    body = created.json()
    config = body["config"]["backend"]
    assert config["kind"] == "http-json" and problems(config["capabilities"], CAPABILITIES) == []
    search_url = config["endpoints"]["searchUrl"]
    assert search_url == body["url"] + "search" and config["endpoints"]["readDocumentUrl"] == body["url"] + "read"
    path = search_url.split("://", 1)[1].split("/", 1)[1]
    assert post(adapter(), "/" + path, {"query": "caffeine", "limit": 1000}).status_code == 200
    listed = api.get(f"/api/collections/{indexed.pk}/piserini-urls").json()
    assert listed["count"] == 1 and "url" not in listed["items"][0] and listed["items"][0]["prefix"] in body["url"]
    revoked = api.post(f"/api/piserini-urls/{body['id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    assert post(adapter(), "/" + path, {"query": "caffeine", "limit": 10}).status_code == 401
    assert api.post(f"/api/piserini-urls/{body['id']}/revoke").status_code == 404


def test_another_users_backend_urls_are_404(api, mallory_api, indexed):
    assert mallory_api.get(f"/api/collections/{indexed.pk}/piserini-urls").status_code == 404
    assert post(mallory_api, f"/api/collections/{indexed.pk}/piserini-urls", {}).status_code == 404
    backend_id = post(api, f"/api/collections/{indexed.pk}/piserini-urls", {}).json()["id"]
    assert mallory_api.post(f"/api/piserini-urls/{backend_id}/revoke").status_code == 404


def test_the_command_prints_the_url_and_the_adapter_config(indexed, user, capsys):
    call_command("piserini_url", indexed.name, "--owner", user.username, "--site", "http://127.0.0.1:9000")
    lines = capsys.readouterr().out.strip().splitlines()
    url = lines[0]
    assert url.startswith("http://127.0.0.1:9000/api/piserini/b/pis_") and url.endswith("/")
    config = json.loads(lines[-1].split("=", 1)[1].strip("'"))
    assert config["backend"]["endpoints"] == {"searchUrl": url + "search", "readDocumentUrl": url + "read"}
    path = "/" + url.split("/", 3)[3]
    assert post(adapter(), path + "search", {"query": "caffeine", "limit": 1000}).status_code == 200
