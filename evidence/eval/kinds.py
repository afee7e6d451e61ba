"""The benchmarks as one protocol: the runner, the comparison and the Evaluations pages ask a benchmark (or the
kind stored with an evaluation) for its figures and never test its name."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Protocol

from ..models import Collection, Run
from .benchmarks import EvalQuestion, HotpotQA, Qasper, SciFact
from .papers_bench import Papers
from .question_sets import QuestionSetError, read_question_set


class Benchmark(Protocol):
    name: ClassVar[str]
    headline: ClassVar[tuple[str, ...]]  # the figures the Evaluations list shows
    per_question: ClassVar[tuple[str, ...]]  # the per-question metrics an evaluation's table and comparison pair
    answer_judged: ClassVar[bool]  # whether an LLM answer judge can grade its answers
    users_collection: ClassVar[bool]  # asked over a user's own collection (which names its owner), not a fixed one

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


class BenchmarkFilesMissing(ValueError):
    """A benchmark's files were not given, do not exist or cannot be read; str() says which and what to give."""


# The files a benchmark reads when none are given, under the shared data folder.
DEFAULT_FILES = {
    "qasper": ("qasper", "qasper-dev-sample.json"),
    "hotpotqa": ("hotpotqa", "hotpot-dev-distractor-30.json"),
}


def benchmark_named(
    name: str,
    data_dir: Path,
    *,
    data: Path | None = None,
    corpus: Path | None = None,
    claims: Path | None = None,
    questions: Path | None = None,
    collection: str | None = None,
    scoped: bool = False,
) -> Benchmark:
    """The benchmark `name` over the files given (or its defaults under `data_dir`); raise BenchmarkFilesMissing."""
    if name == "papers":
        questions = questions or data
        if not questions or not collection:
            raise BenchmarkFilesMissing("papers needs --questions FILE and --collection NAME.")
        if not questions.exists():
            raise BenchmarkFilesMissing(f"{questions} does not exist: give --questions FILE.")
        try:
            items = read_question_set(questions.name, questions.read_bytes(), limited=False)
        except QuestionSetError as error:
            problems = "\n".join([f"{questions} cannot be evaluated:", *error.problems])
            raise BenchmarkFilesMissing(problems) from error
        return Papers(items, collection, scoped=scoped)
    if name == "scifact":
        corpus = corpus or data_dir / "scifact" / "corpus.jsonl"
        claims = claims or data or data_dir / "scifact" / "claims_train.json"
        for path in (corpus, claims):
            if not path.exists():
                raise BenchmarkFilesMissing(f"{path} does not exist: give --corpus and --claims.")
        return SciFact(corpus, claims)
    data = data or data_dir.joinpath(*DEFAULT_FILES[name])
    if not data.exists():
        raise BenchmarkFilesMissing(f"{data} does not exist: give --data FILE.")
    return Qasper(data) if name == "qasper" else HotpotQA(data)
