"""Re-run a recorded run from its recorded model calls and list every answer, citation or score that changed."""

from __future__ import annotations

from typing import Any

from ..models import Run
from ..retrieval import get_searcher
from ..run_state import StoredAnswer
from . import runs

SCORE_TOLERANCE = 1e-4


def replay_run(original: Run) -> tuple[Run, list[str]]:
    """Replay `original` (recorded LLM calls, or the deterministic offline planner) and diff the outcomes."""
    config = {k: v for k, v in (original.config or {}).items() if k not in {"planner", "replay_of"}}
    if original.model_calls.exists():
        config.update({"planner": "replay", "replay_of": original.pk})
    else:
        config["planner"] = "offline"
    replay, _ = runs.create_run(
        original.owner, original.collection, original.question, system=original.system, task=original.task,
        config=config, budget_s=original.budget_s, spend_cap_usd=original.spend_cap_usd, quota=False,
    )  # fmt: skip
    replay = runs.run_here(replay)
    return replay, differences(original, replay)


def citation_keys(run: Run) -> set[tuple[str, int, int]]:
    return {(c.span.document.docid, c.span.start, c.span.end) for c in run.citations.select_related("span__document")}


def differences(original: Run, replay: Run) -> list[str]:
    """List what differs between two runs of the same question: status, answer fields, citations, retrieval."""
    found: list[str] = []
    if original.status != replay.status:
        found.append(f"status: {original.status} -> {replay.status} {replay.error}".rstrip())
    before_answer, after_answer = StoredAnswer.of(original), StoredAnswer.of(replay)
    for key in ("explanation", "exact_answer", "confidence"):
        if getattr(before_answer, key) != getattr(after_answer, key):
            found.append(f"answer.{key}: {getattr(before_answer, key)!r} -> {getattr(after_answer, key)!r}")
    before, after = citation_keys(original), citation_keys(replay)
    for key in sorted(before - after):
        found.append(f"citation lost: {key}")
    for key in sorted(after - before):
        found.append(f"citation added: {key}")
    found.extend(retrieval_differences(original))
    return found


def retrieval_differences(run: Run) -> list[str]:
    """Search each cached query again; every docid whose rank set or score moved by more than 1e-4 is listed."""
    found: list[str] = []
    for search in run.searches.filter(evicted=False).order_by("id"):
        hits = get_searcher(search.searcher, run.collection_id).search(search.query, len(search.ranking) or 1000)
        now: dict[str, float] = {hit.docid: hit.score for hit in hits}
        then: dict[str, Any] = {row[0]: row[1] for row in search.ranking}
        scope = set((run.config or {}).get("scope_docids") or [])
        if scope:
            now = {d: s for d, s in now.items() if d in scope}
        for docid, score in then.items():
            if docid not in now:
                found.append(f"{search.search_id} {search.query!r}: {docid} no longer retrieved")
            elif abs(now[docid] - float(score)) > SCORE_TOLERANCE:
                found.append(f"{search.search_id} {search.query!r}: {docid} score {score} -> {now[docid]:.6f}")
    return found
