"""The steps every system is built from, each acting on a run's state (context.py): read the top hits as units,
select spans without System 1, compose the answer from what was delivered (the search is `ctx.tools.hits`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...answers.layer import ShortAnswer
from ...answers.ranker_rows import Sentence
from ...judge import EvidenceSpan, Unit
from ...retrieval import Hit
from ...text import Plan
from . import progress
from .answering import Answer, ReaderModel, compose_extractive
from .context import RunContext
from .heuristic import heuristic_spans
from .units import load_units

SUPPORTED = 0.8  # a span this probable settles the question
SCOPED_PASSAGE_LIMIT = 3  # a run scoped to this few documents reads their passages, not just their best one
MAX_ROUNDS = 3


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
    """Compose the answer from the delivered spans through the answer layer."""
    return compose_extractive(
        plan.question,
        ctx.delivered,
        max_sentences=ctx.config.answer_spans,
        min_probability=min_probability,
        threshold=ctx.config.answer_threshold,
        reader=reader_of(ctx),
    )


def plain_select(ctx: RunContext, plan: Plan, units: list[Unit]) -> list[EvidenceSpan]:
    """Select spans without System 1 (cosine + lexical overlap), as the baselines do."""
    if units:
        ctx.log("reading", {"docids": list(dict.fromkeys(unit.docid for unit in units))})
    spans = heuristic_spans(plan.question, units)
    return ctx.recorder.deliver(spans)


def reader_of(ctx: RunContext) -> ReaderModel:
    """The reader model as this run uses it: bounded by the run's remaining time, its steps in the stream."""
    from ...reader import read

    def step(message: str) -> Any:
        ctx.log("reader", {"message": message})
        return progress.step(message)

    def read_with(
        question: str,
        sentences: Sequence[Sentence],
        short: ShortAnswer,
        found: bool,
        titles: Sequence[str] | None,
        tables: Sequence[str] | None = None,
    ) -> Any:
        return read(
            question, sentences, short, found, titles, tables, threshold=ctx.config.answer_threshold,
            timeout_s=ctx.clock.remaining() - READER_RESERVE_S, step=step,
        )  # fmt: skip

    return read_with


READER_RESERVE_S = 2.0  # of the run's budget kept for writing the answer after the reader
