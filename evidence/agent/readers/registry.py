"""System 1's readers, one interface: which candidates a reader takes for a question, and how it reads them.

The question and its candidates choose the reader, never a flag: the first reader whose shape the question
has reads it (`read_by_shape`). Each reader records its judgments and delivers judged spans with their
probabilities through the run context, then answers from them.

  whole   a run scoped to up to three long documents, or an open question whose top hits are long documents:
          read whole, sentence by sentence (general.py), the papers the question is about or the best found
  papers  a run scoped to up to three shorter papers: every paragraph, by section (papers.py)
  pairs   two linked short paragraphs (one names the other, or the question names both) (multihop.py)

A question none of them takes goes through the dual system's search loop (SPEC 4's localization and mining).
A planner that names documents itself (the LLM's request_evidence) asks `evidence_in_documents`: the papers
reader for papers, localization (localization.py) for the rest.
The paper readers are the local provider's own scorers: a remote System 1 is asked through localization.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...judge import EvidenceSpan, Unit
from ...retrieval import Hit
from ..core import Outcome, Plan, RunContext, load_units
from .general import answer_whole_papers, papers_to_read, scoped_papers_to_read
from .localization import request_evidence
from .pairs import pair_candidates, read_pairs
from .papers import answer_in_papers, papers_among, read_papers, scoped_papers


@dataclass(frozen=True)
class Shape:
    """A shape of question System 1 reads one way: the candidates it `takes` (None: not this shape), and how it
    `read`s them."""

    name: str
    takes: Callable[[RunContext, Plan, list[Hit]], list[Unit] | None]  # the candidates, or None: not this shape
    read: Callable[[RunContext, Plan, list[Unit]], Outcome]
    local_only: bool = False  # a scorer of the local provider's, not a question to any System 1


def long_documents(ctx: RunContext, plan: Plan, hits: list[Hit]) -> list[Unit] | None:
    """The long documents a run is scoped to, or, asked of the whole collection, those its best hits are."""
    return (scoped_papers_to_read(ctx) if ctx.tools.scope else papers_to_read(ctx, hits)) or None


def scoped_paper_candidates(ctx: RunContext, plan: Plan, hits: list[Hit]) -> list[Unit] | None:
    return scoped_papers(ctx) or None


SHAPES = (
    Shape("whole", long_documents, answer_whole_papers, local_only=True),
    Shape("papers", scoped_paper_candidates, answer_in_papers, local_only=True),
    Shape("pairs", pair_candidates, read_pairs),
)


def evidence_in_documents(ctx: RunContext, plan: Plan, docids: list[str]) -> tuple[list[EvidenceSpan], list[str]]:
    """System 1's evidence for the plan's sub-questions in named documents (what a planner asks for by docid):
    a document that reads as a paper is read whole, paragraph by paragraph with its sections (the papers reader);
    any other by its best passage, localized. Returns the spans delivered and the docids the collection lacks."""
    papers = papers_among(ctx, docids)
    as_papers = {paper.docid for paper in papers}
    units = load_units(ctx.run.collection_id, [Hit(docid, 0.0) for docid in docids if docid not in as_papers])
    missing = sorted(set(docids) - {unit.docid for unit in units} - as_papers)
    spans = (read_papers(ctx, plan.sub_questions, papers) if papers else []) + request_evidence(ctx, plan, units)
    return spans, missing


def choose_shape(ctx: RunContext, plan: Plan, hits: list[Hit]) -> tuple[Shape, list[Unit]] | None:
    """Return the first shape that takes the question, with its candidates; None for the search loop."""
    local = getattr(ctx.judge, "name", "") == "local"
    for shape in SHAPES:
        if shape.local_only and not local:
            continue
        candidates = shape.takes(ctx, plan, hits)
        if candidates:
            return shape, candidates
    return None
