"""The Pi-Serini tool contract: search, read_search_results, read_document, each with a reason.

Every call is a step the run's recorder records (an event and a heartbeat; what it ranked, showed or opened
enters the trajectory there); a bad call gets a message that says how to fix it, returned to the planner as the
tool's output rather than raised past it. `hits` is the search as the offline steps use it: a ranking of hits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...models import Document, Passage, Run
from ...retrieval import Hit, cache, excerpt_around, get_searcher, index_store, piserini
from .recorder import RunRecorder

SEARCH_DEPTH = piserini.SEARCH_DEPTH  # the contract ranks this deep
SHOWN_BY_SEARCH = 5
MAX_PAGE = 50
MAX_LINES = 500
EXCERPT_CHARS = 280


class ToolError(Exception):
    """A bad tool call; the message tells the caller how to fix it."""


@dataclass
class ToolResult:
    text: str
    data: dict[str, Any] = field(default_factory=dict)


TOOL_SPECS: dict[str, dict[str, Any]] = {
    "search": {"required": ["reason", "query"], "optional": {}},
    "read_search_results": {"required": ["reason", "search_id"], "optional": {"offset": 6, "limit": 10}},
    "read_document": {"required": ["reason", "docid"], "optional": {"offset": 1, "limit": 200}},
}


class ResearchTools:
    """The three search tools bound to one run, its collection, a searcher and the run's recorder."""

    def __init__(self, run: Run, recorder: RunRecorder, searcher: str = "hybrid", scope: Sequence[str] = ()) -> None:
        self.run = run
        self.recorder = recorder
        self.searcher = get_searcher(searcher, run.collection_id)
        self.searched: dict[str, list[Hit]] = {}  # query -> hits, for readers that look at them in turn
        # A run may be scoped to some documents (a question about one paper, RunConfig.scope_docids): hits
        # outside are dropped.
        self.scope = {str(d) for d in scope}

    # -------------------------------------------------------------- dispatch

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Validate arguments against the tool's contract and run it."""
        spec = TOOL_SPECS.get(name)
        if spec is None:
            raise ToolError(f"unknown tool {name!r}: use one of {', '.join(TOOL_SPECS)}.")
        missing = [arg for arg in spec["required"] if not isinstance(arguments.get(arg), str)]
        if missing:
            raise ToolError(f"{name} needs {', '.join(missing)} as text: call {name}({self._signature(name)}).")
        extra = set(arguments) - set(spec["required"]) - set(spec["optional"])
        if extra:
            raise ToolError(f"{name} does not take {', '.join(sorted(extra))}: call {name}({self._signature(name)}).")
        values = dict(spec["optional"]) | arguments
        for key in spec["optional"]:
            values[key] = self._as_int(name, key, values[key])
        return getattr(self, name)(**values)

    @staticmethod
    def _signature(name: str) -> str:
        spec = TOOL_SPECS[name]
        return ", ".join([*spec["required"], *(f"{key}={value}" for key, value in spec["optional"].items())])

    @staticmethod
    def _as_int(tool: str, key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ToolError(f"{tool}: {key} must be a whole number (got {value!r}).")
        try:
            return int(value)
        except ValueError:
            raise ToolError(f"{tool}: {key} must be a whole number (got {value!r}).") from None

    # -------------------------------------------------------------- tools

    def search(self, reason: str, query: str) -> ToolResult:
        """Rank up to 1,000 documents, cache the ranking, show ranks 1-5."""
        if not query.strip():
            raise ToolError("search: the query is empty. Give a few keywords from the question.")
        index = index_store.load(self.run.collection_id)
        if self.searcher.name != "dense" and not index.analyze(query):
            raise ToolError(
                f"search: the query {query!r} has no searchable words after removing stopwords. "
                "Use content words (names, terms, numbers)."
            )
        hits = piserini.rank(self.searcher, query, self.scope)
        stored = cache.store_ranking(self.run.pk, query, reason, self.searcher.name, hits)
        shown = hits[:SHOWN_BY_SEARCH]
        entries = self._entries(shown, query, first_rank=1)
        header = f'search_id={stored.search_id} query="{query}" hits={len(hits)}'
        if not hits:
            text = f"{header}\nNo documents matched. Try other words, synonyms or a shorter query."
        else:
            more = ""
            if len(hits) > SHOWN_BY_SEARCH:
                more = (
                    f'\n[more: read_search_results(search_id="{stored.search_id}", offset={SHOWN_BY_SEARCH + 1}, '
                    "limit=10)]"
                )
            text = header + "\n" + "\n".join(entry["text"] for entry in entries) + more
        result = ToolResult(
            text,
            {
                "search_id": stored.search_id,
                "docids": [hit.docid for hit in shown],
                "ranked": [hit.docid for hit in hits],
            },
        )
        self.recorder.event(
            "search",
            {
                "search_id": stored.search_id,
                "query": query,
                "reason": reason,
                "searcher": self.searcher.name,
                "total": len(hits),
                "top": [{k: v for k, v in entry.items() if k != "text"} for entry in entries],
            },
            result.data,
        )
        return result

    def read_search_results(self, reason: str, search_id: str, offset: int = 6, limit: int = 10) -> ToolResult:
        """Page through a cached ranking (offsets are 1-based ranks)."""
        try:
            stored = cache.load_ranking(self.run.pk, search_id)
        except cache.UnknownSearchId as error:
            raise ToolError(f"read_search_results: {error}") from None
        total = len(stored.ranking)
        if offset < 1:
            raise ToolError(f"read_search_results: offset must be 1 or more (got {offset}).")
        if not 1 <= limit <= MAX_PAGE:
            raise ToolError(f"read_search_results: limit must be between 1 and {MAX_PAGE} (got {limit}).")
        if offset > total:
            raise ToolError(
                f"read_search_results: offset {offset} is past the end of {search_id} ({total} hits). "
                f"Use an offset between 1 and {max(total, 1)}, or call search with a new query."
            )
        page = [Hit(docid, score, passage) for docid, score, passage in stored.ranking[offset - 1 : offset - 1 + limit]]
        entries = self._entries(page, stored.query, first_rank=offset)
        last = offset + len(page) - 1
        text = f"search_id={search_id} ranks {offset}-{last} of {total}\n" + "\n".join(e["text"] for e in entries)
        if last < total:
            text += f'\n[more: read_search_results(search_id="{search_id}", offset={last + 1}, limit={limit})]'
        result = ToolResult(
            text, {"docids": [hit.docid for hit in page], "next_offset": last + 1 if last < total else None}
        )
        self.recorder.event(
            "read_search_results",
            {
                "search_id": search_id,
                "reason": reason,
                "offset": offset,
                "limit": limit,
                "docids": [h.docid for h in page],
            },
            result.data,
        )
        return result

    def read_document(self, reason: str, docid: str, offset: int = 1, limit: int = 200) -> ToolResult:
        """Read a document by lines: a header `[docid=X lines a-b of N]` and a continuation hint."""
        document = Document.objects.filter(collection_id=self.run.collection_id, docid=docid).first()
        if document is None:
            raise ToolError(
                f"read_document: docid {docid!r} is not in this collection. Use a docid from search results."
            )
        if not 1 <= limit <= MAX_LINES:
            raise ToolError(f"read_document: limit must be between 1 and {MAX_LINES} (got {limit}).")
        window = piserini.line_window(document.text, offset, limit)
        total = window.total
        if window.empty:
            raise ToolError(
                f"read_document: offset {offset} is outside docid={docid} ({total} lines). "
                f"Use an offset between 1 and {total}."
            )
        last, start, end = window.last, window.start, window.end
        body = document.text[start:end]
        text = f"[docid={docid} lines {offset}-{last} of {total}]\n{document.title}\n\n{body}"
        if last < total:
            text += f'\n[continue: read_document(docid="{docid}", offset={last + 1}, limit={limit})]'
        result = ToolResult(text, {"docid": docid, "start": start, "end": end, "lines": [offset, last, total]})
        self.recorder.event(
            "read_document",
            {
                "docid": docid,
                "title": document.title,
                "reason": reason,
                "lines": [offset, last, total],
                "start": start,
                "end": end,
            },
            result.data,
        )
        return result

    def hits(self, query: str, reason: str) -> list[Hit]:
        """Search, and return the cached ranking as hits ([] when the tool refused the call, its error recorded).

        The same query twice in one run is searched once: readers that look at the question's candidates in turn
        share the first search.
        """
        if query not in self.searched:
            try:
                result = self.search(reason, query)
            except ToolError as error:
                self.recorder.event("tool_error", {"tool": "search", "message": str(error)})
                return []
            ranking = cache.load_ranking(self.run.pk, result.data["search_id"]).ranking
            self.searched[query] = [Hit(docid, score, passage) for docid, score, passage in ranking]
        return self.searched[query]

    # -------------------------------------------------------------- formatting

    def _entries(self, hits: list[Hit], query: str, first_rank: int) -> list[dict[str, Any]]:
        """Format hits as rank, docid, title, score, matched terms and an excerpt of the best passage."""
        documents = {
            doc.docid: doc
            for doc in Document.objects.filter(collection_id=self.run.collection_id, docid__in=[h.docid for h in hits])
        }
        index = index_store.load(self.run.collection_id)
        query_terms = {term: word for word in re.findall(r"\w+", query) for term in index.analyze(word)}
        entries = []
        for rank, hit in enumerate(hits, start=first_rank):
            document = documents.get(hit.docid)
            if document is None:
                continue
            start, end = self._passage_range(document, hit.passage)
            body = document.text[start:end]
            matched = sorted(
                {word for term, word in query_terms.items() if term in set(index.analyze(document.title + " " + body))}
            )
            excerpt = excerpt_around(body, matched, EXCERPT_CHARS)
            entries.append(
                {
                    "rank": rank,
                    "docid": hit.docid,
                    "title": document.title,
                    "score": round(hit.score, 4),
                    "matched": matched,
                    "excerpt": excerpt,
                    "text": (
                        f"{rank}. [docid={hit.docid}] {document.title} (score {hit.score:.4f})\n"
                        f"   matched: {', '.join(matched) or '-'}\n   excerpt: {excerpt}"
                    ),
                }
            )
        return entries

    @staticmethod
    def _passage_range(document: Document, ordinal: int | None) -> tuple[int, int]:
        passages = Passage.objects.filter(document=document)
        passage = passages.filter(ordinal=ordinal).first() if ordinal is not None else None
        passage = passage or passages.order_by("ordinal").first()
        return (passage.start, passage.end) if passage else (0, min(len(document.text), 2000))
