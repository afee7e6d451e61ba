"""Where a wrong answer went wrong, from its trajectory (the failure-stage table of `compare`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

STAGES = (
    "evidence never retrieved",
    "retrieved but not inspected",
    "inspected but not delivered",
    "delivered but not cited",
    "cited but answer wrong",
)


def failure_stage(trajectory: Mapping[str, Sequence[str]], relevant: Collection[str], correct: bool) -> str | None:
    """Return the first funnel stage the gold documents did not pass, or None for a correct answer."""
    if correct:
        return None
    gold = set(relevant)
    if not gold & set(trajectory.get("surfaced", [])):
        return STAGES[0]
    if not gold & (set(trajectory.get("inspected", [])) | set(trajectory.get("opened", []))):
        return STAGES[1]
    if not gold & set(trajectory.get("delivered", [])):
        return STAGES[2]
    if not gold & set(trajectory.get("cited", [])):
        return STAGES[3]
    return STAGES[4]


def funnel_recall(trajectory: Mapping[str, Sequence[str]], relevant: Collection[str]) -> dict[str, float]:
    """Return, per trajectory stage, the share of the gold documents that reached it."""
    gold = set(relevant)
    if not gold:
        return {}
    return {stage: len(gold & set(docids)) / len(gold) for stage, docids in trajectory.items()}
