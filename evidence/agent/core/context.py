"""A run's state as every system shares it: what it was asked and with what (run, config, judge), what it has
found so far (judged units; the recorder keeps the delivered spans and the trajectory, the tools the searches),
and where it records (the recorder, the clock). The steps that act on it are in steps.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...judge import EvidenceSpan, Judge
from ...run_state import RunConfig
from ...text import Plan, make_plan
from .answering import Answer
from .clock import TimeBudget
from .judges import JudgeSpec
from .planners import OfflinePlanner, Planner
from .recorder import RunCancelled, RunRecorder
from .tools import ResearchTools

if TYPE_CHECKING:
    from ...models import Run

__all__ = ["Outcome", "RunCancelled", "RunContext"]


@dataclass
class RunContext:
    run: Run
    tools: ResearchTools
    clock: TimeBudget
    recorder: RunRecorder
    judge: Judge | None = None
    judge_spec: JudgeSpec = field(default_factory=JudgeSpec)  # how a worker rebuilds the same judge
    judged: set[str] = field(default_factory=set)
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
    def delivered(self) -> list[EvidenceSpan]:
        """The spans handed to System 2 so far, in order (`recorder.deliver` hands them; the recorder keeps them)."""
        return self.recorder.delivered

    def log(self, kind: str, payload: dict[str, Any]) -> None:
        """Record a step (event, heartbeat, the trajectory when it grew); stop if the run was cancelled meanwhile."""
        self.recorder.event(kind, payload)

    def record_spend(self, client: Any) -> None:
        """Copy the model client's spend and call count onto the run (the live page shows them)."""
        spent = float(client.cap.spent_usd) if getattr(client, "cap", None) else 0.0
        self.recorder.spend(spent, int(getattr(client, "calls", 0)))


@dataclass
class Outcome:
    status: str
    answer: Answer
