"""Run files that outside evaluators read unchanged: TREC runs, QASPER predictions, BrowseComp-Plus run JSON.

TREC: one line `qid Q0 docid rank score tag` per document, ranks from 1, in our ranking's order. trec_eval
(and ir-measures / pytrec_eval) ignore the rank column and re-sort by score descending, breaking ties by
docid (form_res_rels.c), so the score column must be strictly decreasing in our order or the file holds a
different ranking from the one we scored (a judge's rounded probabilities tie wholesale: 960 of 1,000
documents of a claim at 0.0). When a query's own scores are strictly decreasing they are written as they
are (with repr(), which round-trips exactly); otherwise the column is rank-derived (n, n-1, ..., 1) and the
real scores go to a second file (`trec_scores_tsv`).

QASPER (allenai/qasper-led-baseline scripts/evaluator.py): JSON lines `{"question_id", "predicted_answer",
"predicted_evidence": [paragraph text, ...]}`. The evaluator keys predictions and gold answers by
question_id in a dict, so a repeated id keeps its last entry: we write each id once.

BrowseComp-Plus (texttron/BrowseComp-Plus): one `run_*.json` per query, as written by
search_agent/openai_client.py (`_persist_response`) and read by scripts_evaluation/evaluate_run.py and
evaluate_with_openai.py: `{"metadata", "query_id", "tool_call_counts": {tool: n}, "usage", "status",
"retrieved_docids", "result": [{"type", "tool_name", "arguments", "output"}, ...]}`. A run counts as answered
only when `status == "completed"` and `result[-1]` has `type == "output_text"`; its `output` is the final
answer, read for citations with the pattern `[digits]` (or digit runs inside `[...]`), so a citation must be
a bracketed number; `retrieved_docids` is taken as a set for evidence recall.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_NO_SPACE = re.compile(r"^\S+$")


def _check_token(kind: str, value: str) -> None:
    if not _NO_SPACE.match(value):
        raise ValueError(f"TREC {kind} must be non-empty without whitespace: {value!r}")


def trec_order(hits: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Sort (docid, score) pairs as trec_eval reads a run: score descending, then docid descending."""
    return sorted(hits, key=lambda hit: (hit[1], hit[0]), reverse=True)


def _strictly_decreasing(scores: Sequence[float]) -> bool:
    return all(a > b for a, b in itertools.pairwise(scores))


def ranked_scores(hits: Sequence[tuple[str, float]]) -> tuple[list[tuple[str, float]], bool]:
    """Return the hits in their order with strictly decreasing scores, and whether the scores were replaced."""
    scores = [float(score) for _, score in hits]
    if _strictly_decreasing(scores):
        return [(docid, score) for (docid, _), score in zip(hits, scores, strict=True)], False
    n = len(hits)
    return [(docid, float(n - i)) for i, (docid, _) in enumerate(hits)], True


def _checked(qid: str, hits: Sequence[tuple[str, float]], tag: str) -> None:
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


def trec_run_lines(qid: str, hits: Sequence[tuple[str, float]], tag: str, depth: int | None = None) -> list[str]:
    """Return TREC run lines for one query's (docid, score) hits in our order (best first), ranks from 1."""
    _checked(qid, hits, tag)
    ranked, _ = ranked_scores(list(hits)[:depth])
    return [f"{qid} Q0 {docid} {rank} {score!r} {tag}" for rank, (docid, score) in enumerate(ranked, start=1)]


def trec_run(runs: Mapping[str, Sequence[tuple[str, float]]], tag: str, depth: int | None = None) -> str:
    """Return a whole TREC run file, queries in sorted qid order, newline-terminated."""
    lines = [line for qid in sorted(runs) for line in trec_run_lines(qid, runs[qid], tag, depth)]
    return "".join(f"{line}\n" for line in lines)


def trec_scores_replaced(runs: Mapping[str, Sequence[tuple[str, float]]], depth: int | None = None) -> list[str]:
    """Return the qids whose own scores could not be written as they are (ties or not decreasing)."""
    return [qid for qid in sorted(runs) if ranked_scores(list(runs[qid])[:depth])[1]]


def trec_scores_tsv(runs: Mapping[str, Sequence[tuple[str, float]]], depth: int | None = None) -> str:
    """Return `qid docid rank score` (tab-separated, with a header): our own scores beside the TREC file."""
    rows = ["qid\tdocid\trank\tscore"]
    for qid in sorted(runs):
        for rank, (docid, score) in enumerate(list(runs[qid])[:depth], start=1):
            rows.append(f"{qid}\t{docid}\t{rank}\t{float(score)!r}")
    return "".join(f"{row}\n" for row in rows)


# ------------------------------------------------------------------ QASPER


def qasper_question_id(qid: str) -> str:
    """Return the dataset's question id of one of our qids (older evaluations suffixed repeats with '+')."""
    return qid.rstrip("+")


def qasper_predictions(rows: Sequence[tuple[str, str, Sequence[str]]]) -> str:
    """Return the official predictions JSONL for (qid, answer, evidence paragraphs) rows, one line per id.

    A repeated id keeps its last row, as the official evaluator's dict does.
    """
    by_id: dict[str, dict[str, Any]] = {}
    for qid, answer, evidence in rows:
        question_id = qasper_question_id(qid)
        by_id.pop(question_id, None)
        by_id[question_id] = {
            "question_id": question_id,
            "predicted_answer": answer,
            "predicted_evidence": list(evidence),
        }
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in by_id.values())


# ------------------------------------------------------------------ BrowseComp-Plus


_BRACKETS = re.compile(r"\[([^\[\]]{1,200})\]")
_FULLWIDTH = re.compile(r"【([^【】]*)】")
NUMERIC = re.compile(r"^\d+$")  # how the evaluator reads a cited docid: a digit run


def renumber_citations(text: str, ids: Mapping[str, str]) -> str:
    """Rewrite inline `[docid]` / `[a, b]` citations with the export's ids, and every other bracket as parentheses.

    The evaluator reads any digit run inside square (or fullwidth 【】) brackets as a cited docid: `[1809.06537]`
    reads as two ids, and a quoted "2.50 [1.22-5.16]" as four made-up ones. So a collection whose docids are not
    all numbers is exported with numbers for ids (`ids`, the same ones `retrieved_docids` uses), and the papers'
    own brackets are written "(1.22-5.16)", which its pattern does not read.
    """

    def one(match: re.Match[str]) -> str:
        parts = [p.removeprefix("docid=").strip() for p in re.split(r"\s*,\s*", match.group(1).strip())]
        if parts and all(p in ids for p in parts):
            return "[" + ", ".join(ids[p] for p in parts) + "]"
        return "(" + match.group(1) + ")"

    return _FULLWIDTH.sub(lambda m: "(" + m.group(1) + ")", _BRACKETS.sub(one, text))


def _result_item(
    kind: str, tool_name: str | None, arguments: Any, output: Any, our_tool: str | None = None
) -> dict[str, Any]:
    """Return one `result` entry with the four keys the official writer emits (and our own tool's name, when it
    differs from the official one, under `our_tool_name`)."""
    item = {"type": kind, "tool_name": tool_name, "arguments": arguments, "output": output}
    if our_tool and our_tool != tool_name:
        item["our_tool_name"] = our_tool
    return item


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
    result = [
        _result_item(s["type"], s.get("tool_name"), s.get("arguments"), s.get("output"), s.get("our_tool_name"))
        for s in steps
    ]
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
