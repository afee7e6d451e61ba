"""What every system shares: the run context, its outcome, and the steps they are built from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...judge.localize import EvidenceSpan
from ...judge.types import Judge, Unit
from ...retrieval.types import Hit
from ...run_config import RunConfig
from ..answer import Answer, compose_extractive
from ..planning.choice import OfflinePlanner, Planner
from ..planning.offline import Plan, make_plan
from ..readers.heuristic import heuristic_spans
from ..readers.judges import JudgeSpec
from ..readers.units import load_units
from ..tools import ResearchTools, ToolError
from .budget import TimeBudget
from .recorder import RunCancelled, RunRecorder
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ...models import Run

__all__ = ["Outcome", "RunCancelled", "RunContext"]

SUPPORTED = 0.8  # a span this probable settles the question
SCOPED_PASSAGE_LIMIT = 3  # a run scoped to this few documents reads their passages, not just their best one
MAX_ROUNDS = 3


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
        self.trajectory.add("delivered", [s.docid for s in fresh])
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


# ------------------------------------------------------------------ shared steps


def search_hits(ctx: RunContext, query: str, reason: str) -> list[Hit]:
    """Run the search tool and return the cached ranking as hits (empty when the tool refused the call).

    The same query twice in one run is searched once: readers that look at the question's candidates in turn
    share the first search.
    """
    from ...retrieval.cache import load_ranking

    if query in ctx.searched:
        return ctx.searched[query]
    try:
        result = ctx.tools.search(reason, query)
    except ToolError as error:
        ctx.log("tool_error", {"tool": "search", "message": str(error)})
        return []
    ranking = load_ranking(ctx.run.pk, result.data["search_id"]).ranking
    ctx.searched[query] = [Hit(docid, score, passage) for docid, score, passage in ranking]
    return ctx.searched[query]


def read_top(ctx: RunContext, hits: list[Hit], k: int, query: str | None = None) -> list[Unit]:
    """Load the top k hits as units; a run scoped to a few documents reads their best passages instead."""
    if ctx.tools.scope and len(ctx.tools.scope) <= SCOPED_PASSAGE_LIMIT:
        return ctx_units(ctx, scoped_passage_hits(ctx, query or ctx.run.question, k))
    return ctx_units(ctx, hits[:k])


def scoped_passage_hits(ctx: RunContext, query: str, k: int) -> list[Hit]:
    """Rank the passages of the scoped documents by passage BM25 (each passage becomes its own unit)."""
    from ...retrieval import index_store

    index = index_store.load(ctx.run.collection_id)
    scores = index.passages.scores(index.analyze(query))
    rows = [
        (float(scores[i]), docid, index.passage_ordinals[i])
        for i, docid in enumerate(index.passage_docids)
        if docid in ctx.tools.scope
    ]
    rows.sort(key=lambda row: (-row[0], row[1], row[2]))
    return [Hit(docid, score, ordinal) for score, docid, ordinal in rows[:k]]


def ctx_units(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Load units for hits with the run's block kind (sentences, or paragraphs for paper QA)."""
    return load_units(ctx.run.collection_id, hits, block_kind=ctx.config.block_kind)


def unit_key(unit: Unit) -> str:
    return f"{unit.docid}@{unit.blocks[0].start if unit.blocks else 0}"


def answer_from(ctx: RunContext, plan: Plan, min_probability: float = 0.2) -> Answer:
    """Compose the answer from the delivered spans through the answer layer; record what it cites."""
    answer = compose_extractive(
        plan.question,
        ctx.delivered,
        max_sentences=ctx.config.answer_spans,
        min_probability=min_probability,
        threshold=ctx.config.answer_threshold,
    )
    ctx.trajectory.add("cited", [span.docid for _, span in answer.citations])
    return answer


def plain_select(ctx: RunContext, plan: Plan, units: list[Unit]) -> list[EvidenceSpan]:
    """Select spans without System 1 (cosine + lexical overlap), as the baselines do."""
    ctx.trajectory.add("inspected", [unit.docid for unit in units])
    spans = heuristic_spans(plan.question, units)
    return ctx.deliver(spans)


# ------------------------------------------------------------------ systems
