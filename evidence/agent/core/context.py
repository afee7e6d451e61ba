"""A run's state as every system shares it: what it was asked and with what (run, config, judge), what it has
found so far (delivered spans, judged units, searches), and where it records (recorder, trajectory, clock).
The steps that act on it are in steps.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...judge.localize import EvidenceSpan
from ...judge.types import Judge, Unit
from ...retrieval.types import Hit
from ...run_config import RunConfig
from ...text.planning import Plan, make_plan
from .answering import Answer
from .clock import TimeBudget
from .judges import JudgeSpec
from .planners import OfflinePlanner, Planner
from .recorder import RunCancelled, RunRecorder
from .tools import ResearchTools
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ...models import Run

__all__ = ["Outcome", "RunCancelled", "RunContext"]


@dataclass
class RunContext:
    run: Run
    trajectory: Trajectory
    tools: ResearchTools
    clock: TimeBudget
    recorder: RunRecorder
    judge: Judge | None = None
    judge_spec: JudgeSpec = field(default_factory=JudgeSpec)  # how a worker rebuilds the same judge
    delivered: list[EvidenceSpan] = field(default_factory=list)
    judged: set[str] = field(default_factory=set)
    searched: dict[str, list[Hit]] = field(default_factory=dict)  # query -> hits, for readers that try in turn
    config: RunConfig = field(default_factory=RunConfig)
    planner: Planner = field(default_factory=OfflinePlanner)

    @cached_property
    def plan(self) -> Plan:
        """The offline plan of the question (sub-questions, queries, clues), made once per run; a follow-up's
        question is read in the light of its thread."""
        return make_plan(self.run.question, [(t.question, t.answer) for t in self.config.earlier])

    @property
    def ranking(self) -> bool:
        """Whether the run ranks documents (Run.Task.RANKING) rather than answering."""
        return self.run.task == "ranking"

    @property
    def emit(self) -> Callable[..., Any]:
        return self.recorder.emit

    def reached(self, stage: str, docids: Sequence[str]) -> list[str]:
        """Record documents reaching a stage of the recall funnel (inspected, delivered, cited; the tools record
        surfaced, previewed and opened); return those new there."""
        return self.trajectory.add(stage, list(docids))

    def log(self, kind: str, payload: dict[str, Any]) -> None:
        """Record a step (event, trajectory, heartbeat); stop if the run was cancelled meanwhile."""
        self.recorder.event(kind, payload)

    def record_spend(self, client: Any) -> None:
        """Copy the model client's spend and call count onto the run (the live page shows them)."""
        spent = float(client.cap.spent_usd) if getattr(client, "cap", None) else 0.0
        self.recorder.spend(spent, int(getattr(client, "calls", 0)))

    def record_judgments(
        self, goal: str, units: Sequence[Unit], best: dict[str, float], spans: Sequence[EvidenceSpan]
    ) -> None:
        """Record System 1's judgment of each unit: its best probability and the spans it chose."""
        self.recorder.judgments(goal, units, best, spans, provider=getattr(self.judge, "name", "local"))

    def deliver(self, spans: list[EvidenceSpan]) -> list[EvidenceSpan]:
        """Hand spans to System 2: new ones are recorded, emitted and added to the trajectory."""
        known = {(s.docid, s.start, s.end) for s in self.delivered}
        fresh = [
            s for s in spans if (s.docid, s.start, s.end) not in known and not known.add((s.docid, s.start, s.end))
        ]
        self.delivered.extend(fresh)
        self.reached("delivered", [s.docid for s in fresh])
        for span in fresh:
            self.log(
                "evidence",
                {
                    "docid": span.docid,
                    "start": span.start,
                    "end": span.end,
                    "page": span.page,
                    "quote": span.quote,
                    "probability": round(span.probability, 4),
                    "goal": span.sub_question,
                },
            )
        return fresh


@dataclass
class Outcome:
    status: str
    answer: Answer
