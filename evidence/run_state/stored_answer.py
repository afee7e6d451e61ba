"""A run's stored answer, typed: what `run.answer` (a JSON column) holds, read in one place.

The recorder writes `Answer.as_dict()` (agent/core/answering.py) into `run.answer`; every other module reads it
through `StoredAnswer.of(run)`: the outcome (a short answer shown, withheld, not found, or none yet), the short
answer, its confidence, the explanation and the short answer's place in it, the document ranking and the reader's
signals. `tests/foundation/test_one_writer.py` fails on a raw `run.answer[...]` or `run.answer.get(...)` elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..answers.layer import NO_SHORT_ANSWER

UNFINISHED = ("queued", "running", "failed", "cancelled")  # statuses with no answer to show


def outcome_of(status: str, answer: dict[str, Any]) -> str:
    """How a stored answer ends: short_answer (shown), no_short_answer (the evidence without a guess), not_found
    (the collection does not answer), or none (no answer yet, or the run failed)."""
    exact = str(answer.get("exact_answer") or "")
    if status == "not_found" or answer.get("not_found"):
        return "not_found"
    if exact == NO_SHORT_ANSWER:
        return "no_short_answer"
    return "short_answer" if exact and status not in UNFINISHED else "none"


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _highlight(value: object) -> tuple[int, int] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return value[0], value[1]
    return None


@dataclass(frozen=True)
class StoredAnswer:
    status: str
    outcome: str  # short_answer | no_short_answer | not_found | none
    explanation: str = ""
    exact_answer: str = ""  # as stored: the short answer, "No short answer", "Not found in this collection", ...
    confidence: float | None = None
    highlight: tuple[int, int] | None = None  # [start, end) of the short answer inside the explanation
    ranking: list[dict[str, Any]] = field(default_factory=list)
    signals: dict[str, Any] = field(default_factory=dict)
    dropped_citations: int = 0
    data: dict[str, Any] = field(default_factory=dict)  # the stored JSON itself, for exports that pass it on

    @classmethod
    def of(cls, run: Any) -> StoredAnswer:
        """Read `run.answer` (None or a dict) with the run's status."""
        return cls.parse(run.status, run.answer)

    @classmethod
    def parse(cls, status: str, answer: object) -> StoredAnswer:
        data = answer if isinstance(answer, dict) else {}
        ranking = data.get("ranking")
        signals = data.get("signals")
        return cls(
            status=status,
            outcome=outcome_of(status, data),
            explanation=str(data.get("explanation") or ""),
            exact_answer=str(data.get("exact_answer") or ""),
            confidence=_number(data.get("confidence")),
            highlight=_highlight(data.get("highlight")),
            ranking=[item for item in ranking if isinstance(item, dict)] if isinstance(ranking, list) else [],
            signals=signals if isinstance(signals, dict) else {},
            dropped_citations=int(_number(data.get("dropped_citations")) or 0),
            data=data,
        )

    @property
    def shown(self) -> bool:
        """True when a short answer is given (not withheld, not found, or missing)."""
        return self.outcome == "short_answer"

    @property
    def short_answer(self) -> str:
        """The short answer when one is shown, else ""."""
        return self.exact_answer if self.shown else ""

    @property
    def candidate(self) -> str:
        """The reader's best guess when the short answer was withheld (never to be shown as an answer)."""
        return str(self.signals.get("candidate") or "")

    @property
    def p_right(self) -> float | None:
        return _number(self.signals.get("p_right"))

    @property
    def reading(self) -> dict[str, Any]:
        """How the reader model read the evidence (backend, fallback), {} for runs from before it."""
        reading = self.signals.get("reading")
        return reading if isinstance(reading, dict) else {}

    def ranked_docids(self) -> list[tuple[str, float]]:
        """(docid, estimate) of the answer's document ranking, best first."""
        return [(str(item["docid"]), float(_number(item.get("p")) or 0.0)) for item in self.ranking if "docid" in item]
