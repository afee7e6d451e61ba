"""The MCP server end to end with the SDK's own client: over streamable HTTP (mounted in the app as served) and over
stdio (`manage.py mcp` as a subprocess), search, read_document, ask and get_span act for the key's owner and
refuse another user's collections, runs and spans."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from django.conf import settings as django_settings

from evidence.auth_keys import create_key
from evidence.models import Collection, Document, Span
from tests.api.helpers import serve_asgi
from tests.ingesting import ingest_now

ROOT = Path(__file__).resolve().parents[2]
NOTES = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors. It delays sleep onset by about an "
    b"hour in most adults.\n\nAvoiding coffee after noon helps.\n",
    "exercise.md": b"# Exercise and memory\n\nOne year of walking increased hippocampal volume by two percent.\n",
}
QUESTION = "How long does caffeine delay sleep onset?"

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def library(user) -> Collection:
    collection = Collection.objects.create(owner=user, name="Sleep notes")
    ingest_now(collection, list(NOTES.items()))
    return collection


@pytest.fixture
def keys(user, other_user) -> tuple[str, str]:
    return create_key(user, "mcp")[1], create_key(other_user, "mcp")[1]


@pytest.fixture
def server():
    base, stop = serve_asgi()
    yield base
    stop()


async def session_calls(open_client, plan: list[tuple[str, dict]]) -> list[tuple[bool, object]]:
    """Open one client session and make the calls in order; each is (is_error, structured content or text)."""
    results = []
    async with open_client() as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        results.append((False, sorted(names)))
        for tool, arguments in plan:
            result = await client.call_tool(tool, arguments)
            text = " ".join(getattr(block, "text", "") for block in result.content)
            results.append((result.is_error, text if result.is_error else result.structured_content))
    return results


def http_client(base: str, key: str):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    def open_client():
        class Opened:
            async def __aenter__(self):
                self.http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
                await self.http.__aenter__()
                self.client = Client(streamable_http_client(f"{base}/mcp", http_client=self.http))
                return await self.client.__aenter__()

            async def __aexit__(self, *exc):
                await self.client.__aexit__(*exc)
                await self.http.__aexit__(*exc)

        return Opened()

    return open_client


def stdio_client(key: str):
    from mcp import Client, StdioServerParameters

    database = django_settings.DATABASES["default"]
    url = (
        f"postgresql://{quote(database['USER'])}:{quote(database['PASSWORD'])}@{database['HOST']}:{database['PORT']}"
        f"/{database['NAME']}"
    )
    env = {
        "EVIDENCE_API_KEY": key,
        "DATABASE_URL": url,
        "REDIS_URL": django_settings.REDIS_URL,
        "DJANGO_SETTINGS_MODULE": "researchapp.settings",
        "EVIDENCE_TASK_QUEUE": os.environ["EVIDENCE_TEST_QUEUE"],  # the test worker's queue
        # The test's own data folder (its uploads are DATA_DIR / "uploads"), and the built models.
        "EVIDENCE_DATA_DIR": str(Path(django_settings.EVIDENCE_UPLOAD_DIR).parent),
        "EVIDENCE_MODEL_DIR": os.environ.get("EVIDENCE_MODEL_DIR") or str(Path(django_settings.DATA_DIR) / "models"),
        "EVIDENCE_LOG_LEVEL": "WARNING",
    }
    params = StdioServerParameters(command=sys.executable, args=["manage.py", "mcp"], env=env, cwd=str(ROOT))
    return lambda: Client(params)


def plan_for(collection: Collection) -> list[tuple[str, dict]]:
    return [
        ("search", {"collection": str(collection.pk), "query": "caffeine sleep onset", "limit": 5}),
        ("read_document", {"collection": collection.name, "docid": "caffeine", "offset": 1, "limit": 3}),
        ("ask", {"collection": collection.name, "question": QUESTION, "wait_s": 120}),
    ]


def check_research(results, collection: Collection) -> dict:
    (_, names), (search_error, hits), (read_error, lines), (ask_error, answer) = results
    assert {"search", "read_document", "ask", "get_span", "get_answer", "list_collections"} <= set(names)
    assert not search_error and hits["hits"][0]["docid"] == "caffeine"
    assert {"docid", "score", "snippet"} <= set(hits["hits"][0]) and hits["totalHits"] >= 1
    assert not read_error and "Caffeine and sleep" in str(lines)
    assert not ask_error and answer["finished"], answer
    assert answer["citations"], answer
    document = Document.objects.get(collection=collection, docid="caffeine")
    for citation in answer["citations"]:
        assert citation["docid"] in {"caffeine", "exercise"}
        source = Document.objects.get(collection=collection, docid=citation["docid"])
        assert source.text[citation["start"] : citation["end"]] == citation["quote"]
        assert citation["audit_url"].endswith(f"/runs/{answer['run_id']}/audit?span={citation['span_id']}#span")
    assert any(c["docid"] == document.docid for c in answer["citations"])
    return answer


def test_over_http_the_tools_research_for_the_keys_owner_and_refuse_anothers(server, library, keys, celery_worker):
    alice, mallory = keys
    results = asyncio.run(session_calls(http_client(server, alice), plan_for(library)))
    answer = check_research(results, library)
    span_id = answer["citations"][0]["span_id"]
    plan = [("get_span", {"span_id": span_id})]
    (_, _), (span_error, span) = asyncio.run(session_calls(http_client(server, alice), plan))
    stored = Span.objects.get(pk=span_id)
    assert not span_error and (span["quote"], span["start"], span["end"]) == (stored.quote, stored.start, stored.end)
    assert span["before"] + span["quote"] + span["after"] in stored.document.text and span["matches_source"]

    refused = asyncio.run(
        session_calls(
            http_client(server, mallory),
            [
                ("search", {"collection": str(library.pk), "query": "caffeine"}),
                ("read_document", {"collection": library.name, "docid": "caffeine"}),
                ("ask", {"collection": str(library.pk), "question": QUESTION}),
                ("get_span", {"span_id": span_id}),
                ("get_answer", {"run_id": answer["run_id"]}),
                ("list_collections", {}),
            ],
        )
    )
    errors = refused[1:6]
    assert all(is_error for is_error, _ in errors), errors
    assert f"No collection '{library.pk}' of yours" in errors[0][1]
    assert f"No span {span_id} in your runs" in errors[3][1] and f"No run {answer['run_id']} of yours" in errors[4][1]
    assert refused[6] == (False, {"collections": []})
    assert "Caffeine blocks" not in str(refused)


def test_over_http_a_missing_or_unknown_key_is_a_401_before_any_tool_runs(server):
    ping = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    for extra in ({}, {"Authorization": "Bearer evd_not-a-key"}):
        response = httpx.post(f"{server}/mcp", json=ping, headers={**headers, **extra}, timeout=10)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert "API key" in response.json()["detail"]


@pytest.mark.slow  # a manage.py subprocess: ~11 s
def test_over_stdio_manage_py_mcp_researches_for_the_key_in_its_environment(library, keys, celery_worker):
    alice, mallory = keys
    results = asyncio.run(session_calls(stdio_client(alice), plan_for(library)))
    check_research(results, library)
    refused = asyncio.run(
        session_calls(stdio_client(mallory), [("search", {"collection": library.name, "query": "caffeine"})])
    )
    assert refused[1][0] and "No collection 'Sleep notes' of yours" in refused[1][1]
    unknown = asyncio.run(session_calls(stdio_client("evd_unknown"), [("list_collections", {})]))
    assert unknown[1][0] and "unknown or revoked" in unknown[1][1]


def test_manage_py_mcp_check_names_the_keys_owner_or_says_what_to_set(keys, monkeypatch, capsys):
    from django.core.management import CommandError, call_command

    monkeypatch.setenv("EVIDENCE_API_KEY", keys[0])
    call_command("mcp", "--check")
    assert "acts for alice" in capsys.readouterr().err
    monkeypatch.setenv("EVIDENCE_API_KEY", "evd_revoked")
    with pytest.raises(CommandError, match=r"Set EVIDENCE_API_KEY to one of your API keys.*unknown or revoked"):
        call_command("mcp", "--check")
