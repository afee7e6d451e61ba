"""The benchmarks as one protocol: the runner, the comparison and the Evaluations pages ask a benchmark (or the
kind stored with an evaluation) for its figures and never test its name."""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from ..models import Collection, Run
from .benchmarks import EvalQuestion, HotpotQA, Qasper, SciFact
from .papers_bench import Papers


class Benchmark(Protocol):
    name: ClassVar[str]
    headline: ClassVar[tuple[str, ...]]  # the figures the Evaluations list shows
    per_question: ClassVar[tuple[str, ...]]  # the per-question metrics an evaluation's table and comparison pair
    answer_judged: ClassVar[bool]  # whether an LLM answer judge can grade its answers

    def collection(self, owner: Any) -> Collection: ...

    def questions(self) -> list[EvalQuestion]: ...

    def run_config(self, question: EvalQuestion) -> dict[str, Any]: ...

    def score(self, question: EvalQuestion, run: Run) -> dict[str, Any]: ...

    @staticmethod
    def correct(metrics: dict[str, Any]) -> bool: ...

    @staticmethod
    def summarize(items: list[dict[str, Any]]) -> dict[str, Any]: ...


KINDS: dict[str, type[Benchmark]] = {kind.name: kind for kind in (SciFact, Qasper, HotpotQA, Papers)}


def kind_of(name: str) -> type[Benchmark] | None:
    """The benchmark an evaluation was stored under (None for a name this version does not know)."""
    return KINDS.get(name)
