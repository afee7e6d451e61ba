"""Run files that outside evaluators read unchanged: TREC runs and BrowseComp-Plus run JSON.

TREC: one line `qid Q0 docid rank score tag` per document, ranks from 1. trec_eval ignores the rank
column and re-sorts by score descending, then docid descending (form_res_rels.c), so we write lines in
that same order: the file then reads the same to trec_eval and to a human. Scores are written with
repr() so the printed value round-trips exactly and cannot create ties our sort did not see (trec_eval
holds scores as C floats; scores equal to ~7 digits may still tie there).

BrowseComp-Plus (texttron/BrowseComp-Plus): one `run_*.json` per query, as written by
search_agent/openai_client.py (`_persist_response`) and read by scripts_evaluation/evaluate_with_openai.py:
`{"metadata", "query_id", "tool_call_counts": {tool: n}, "usage", "status", "retrieved_docids",
"result": [{"type", "tool_name", "arguments", "output"}, ...]}`. The evaluator treats a run as answered
only when `status == "completed"` and `result[-1]` has `type == "output_text"`; it reads that item's
`output` as the final answer, takes `retrieved_docids` as a set for evidence recall, globs `run_*.json`,
and reads `metadata.model` for the leaderboard row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_NO_SPACE = re.compile(r"^\S+$")


def _check_token(kind: str, value: str) -> None:
    if not _NO_SPACE.match(value):
        raise ValueError(f"TREC {kind} must be non-empty without whitespace: {value!r}")


def trec_order(hits: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Sort (docid, score) pairs as trec_eval does: score descending, then docid descending."""
    return sorted(hits, key=lambda hit: (hit[1], hit[0]), reverse=True)


def trec_run_lines(qid: str, hits: Sequence[tuple[str, float]], tag: str, depth: int | None = None) -> list[str]:
    """Return TREC run lines for one query's (docid, score) hits, best first, ranks from 1."""
    _check_token("qid", qid)
    _check_token("tag", tag)
    seen: set[str] = set()
    for docid, score in hits:
        _check_token("docid", docid)
        if docid in seen:
            raise ValueError(f"duplicate docid {docid!r} for query {qid!r}")
        if not math.isfinite(score):
            raise ValueError(f"non-finite score for {docid!r}: {score}")
        seen.add(docid)
    ordered = trec_order([(docid, float(score)) for docid, score in hits])[:depth]
    return [f"{qid} Q0 {docid} {rank} {score!r} {tag}" for rank, (docid, score) in enumerate(ordered, start=1)]


def trec_run(runs: Mapping[str, Sequence[tuple[str, float]]], tag: str, depth: int | None = None) -> str:
    """Return a whole TREC run file, queries in sorted qid order, newline-terminated."""
    lines = [line for qid in sorted(runs) for line in trec_run_lines(qid, runs[qid], tag, depth)]
    return "".join(f"{line}\n" for line in lines)


def _result_item(kind: str, tool_name: str | None, arguments: Any, output: Any) -> dict[str, Any]:
    """Return one `result` entry with the four keys the official writer emits."""
    return {"type": kind, "tool_name": tool_name, "arguments": arguments, "output": output}


def browsecomp_run(
    query_id: str | int,
    answer: str,
    retrieved_docids: Sequence[str | int],
    tool_call_counts: Mapping[str, int],
    status: str = "completed",
    steps: Sequence[Mapping[str, Any]] = (),
    metadata: Mapping[str, Any] | None = None,
    usage: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return one BrowseComp-Plus run object; the final answer is the last `output_text` result item."""
    result = [_result_item(s["type"], s.get("tool_name"), s.get("arguments"), s.get("output")) for s in steps]
    if answer:
        result.append(_result_item("output_text", None, None, answer))
    return {
        "metadata": dict(metadata or {}),
        "query_id": str(query_id),
        "tool_call_counts": {name: int(n) for name, n in sorted(tool_call_counts.items())},
        "usage": dict(usage or {}),
        "status": status,
        # First-seen order, deduplicated: the evaluator takes a set, and the order still shows retrieval.
        "retrieved_docids": list(dict.fromkeys(str(d) for d in retrieved_docids)),
        "result": result,
    }


def browsecomp_filename(query_id: str | int) -> str:
    """Return the run file name for a query; the evaluator globs run_*.json."""
    return f"run_{re.sub(r'[^A-Za-z0-9_.-]', '_', str(query_id))}.json"
