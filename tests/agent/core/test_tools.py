"""The Pi-Serini tool contract: defaults, pagination, search_id eviction, errors that say how to fix a call."""

from __future__ import annotations

import re

import pytest

from evidence import streams
from evidence.agent.core import ResearchTools, RunRecorder, ToolError
from evidence.models import Run, RunEvent
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

DOCS = {
    f"note-{n:02d}.md": (
        f"# Caffeine note {n}\n\n" + "\n\n".join(f"Line {i} about caffeine and sleep." for i in range(30))
    ).encode()
    for n in range(12)
}
DOCS["greek.md"] = "# Ελληνικά\n\nΗ καφεΐνη επηρεάζει τον ύπνο. Naïve café résumé.\n".encode()


@pytest.fixture
def tools(collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    ingest_now(collection, DOCS.items(), embed=False)
    run = Run.objects.create(owner=collection.owner, collection=collection, question="caffeine?")
    return ResearchTools(run, RunRecorder(run, streams.emit), searcher="bm25")


def test_search_shows_ranks_one_to_five_and_how_to_continue(tools):
    result = tools.call("search", {"reason": "r", "query": "caffeine sleep"})
    assert result.text.startswith('search_id=s1 query="caffeine sleep" hits=12')
    assert [line.split(".")[0] for line in result.text.splitlines() if line[:1].isdigit()] == ["1", "2", "3", "4", "5"]
    assert result.text.endswith('[more: read_search_results(search_id="s1", offset=6, limit=10)]')
    trajectory = tools.recorder.trajectory
    assert len(trajectory["surfaced"]) == 12 and len(trajectory["previewed"]) == 5
    assert RunEvent.objects.filter(run=tools.run, kind="search").count() == 1


def test_read_search_results_defaults_to_offset_six_limit_ten_and_stops_at_the_end(tools):
    tools.call("search", {"reason": "r", "query": "caffeine"})
    page = tools.call("read_search_results", {"reason": "r", "search_id": "s1"})
    assert page.text.startswith("search_id=s1 ranks 6-12 of 12")
    assert page.data["next_offset"] is None and "[more:" not in page.text
    last = tools.call("read_search_results", {"reason": "r", "search_id": "s1", "offset": 12, "limit": 1})
    assert last.text.startswith("search_id=s1 ranks 12-12 of 12")
    with pytest.raises(ToolError, match="offset 13 is past the end of s1 \\(12 hits\\)"):
        tools.call("read_search_results", {"reason": "r", "search_id": "s1", "offset": 13})
    with pytest.raises(ToolError, match="offset must be 1 or more"):
        tools.call("read_search_results", {"reason": "r", "search_id": "s1", "offset": 0})
    with pytest.raises(ToolError, match="limit must be between 1 and 50"):
        tools.call("read_search_results", {"reason": "r", "search_id": "s1", "limit": 500})


def test_the_thirty_third_search_evicts_the_oldest(tools):
    for n in range(33):
        tools.call("search", {"reason": "r", "query": f"caffeine {n}"})
    with pytest.raises(ToolError, match="'s1' was evicted: only the 32 most recent searches are kept"):
        tools.call("read_search_results", {"reason": "r", "search_id": "s1"})
    assert tools.call("read_search_results", {"reason": "r", "search_id": "s2"}).text.startswith("search_id=s2")
    assert tools.run.searches.filter(evicted=False).count() == 32


def test_unknown_search_ids_and_docids_say_how_to_fix_the_call(tools):
    with pytest.raises(ToolError, match=re.escape("search_id 's9' is unknown. Call search first.")):
        tools.call("read_search_results", {"reason": "r", "search_id": "s9"})
    with pytest.raises(
        ToolError, match=re.escape("docid 'nope' is not in this collection. Use a docid from search results.")
    ):
        tools.call("read_document", {"reason": "r", "docid": "nope"})
    with pytest.raises(ToolError, match="search needs reason as text: call search\\(reason, query\\)"):
        tools.call("search", {"query": "caffeine"})
    with pytest.raises(ToolError, match="does not take mode"):
        tools.call("search", {"reason": "r", "query": "caffeine", "mode": "x"})
    with pytest.raises(ToolError, match="unknown tool 'browse'"):
        tools.call("browse", {})


def test_read_document_pages_by_lines_with_a_header_and_a_continuation(tools):
    text = tools.run.collection.documents.get(docid="note-03").text
    total = len(text.split("\n"))
    assert total > 40  # 30 paragraphs separated by blank lines, under a heading
    first = tools.call("read_document", {"reason": "r", "docid": "note-03"})
    assert first.text.startswith(f"[docid=note-03 lines 1-{total} of {total}]") and "[continue:" not in first.text
    page = tools.call("read_document", {"reason": "r", "docid": "note-03", "offset": 3, "limit": 2})
    assert page.text.startswith(f"[docid=note-03 lines 3-4 of {total}]")
    assert page.text.endswith('[continue: read_document(docid="note-03", offset=5, limit=2)]')
    assert text[page.data["start"] : page.data["end"]] == "\n".join(text.split("\n")[2:4])
    with pytest.raises(ToolError, match=f"offset {total + 1} is outside docid=note-03 \\({total} lines\\)"):
        tools.call("read_document", {"reason": "r", "docid": "note-03", "offset": total + 1})
    assert tools.recorder.trajectory["opened"] == ["note-03"]


def test_empty_and_stopword_queries_are_refused_clearly(tools):
    with pytest.raises(ToolError, match="the query is empty"):
        tools.call("search", {"reason": "r", "query": "   "})
    with pytest.raises(ToolError, match="no searchable words after removing stopwords"):
        tools.call("search", {"reason": "r", "query": "the of and is"})


def test_non_ascii_queries_find_non_ascii_text(tools):
    result = tools.call("search", {"reason": "r", "query": "καφεΐνη naïve"})
    assert "docid=greek" in result.text
    assert tools.call("read_document", {"reason": "r", "docid": "greek"}).text.startswith("[docid=greek lines 1-")
