"""Questions about one paper (or a few): System 1 reads every paragraph with the section-aware scorer."""

from __future__ import annotations

from functools import cache

import numpy as np

from ...judge import CONFIDENCE_HEAD, EvidenceSpan, Head, Unit, paragraph_scores, pick_paragraphs, zscore
from ..core import SCOPED_PASSAGE_LIMIT, Outcome, Plan, RunContext, answer_from, load_document_units

MIN_SECTIONS = 2  # a document whose paragraphs carry fewer section names is not read as a paper


def scoped_papers(ctx: RunContext) -> list[Unit]:
    """Return the run's scoped documents as whole papers (paragraphs with section names), else []."""
    scope = ctx.tools.scope
    if not scope or len(scope) > SCOPED_PASSAGE_LIMIT:
        return []
    return papers_among(ctx, sorted(scope))


def papers_among(ctx: RunContext, docids: list[str]) -> list[Unit]:
    """Return those of the documents that read as papers: all their paragraphs, with at least two section names."""
    units = load_document_units(ctx.run.collection_id, docids, "paragraph")
    return [u for u in units if len({b.label for b in u.blocks if b.label}) >= MIN_SECTIONS]


@cache
def confidence_head() -> Head:
    """Return the paper scorer's calibration: P(a paragraph is evidence | its z-score in the paper), fitted by
    bench/fitting/paper_fit.py."""
    return Head.load(CONFIDENCE_HEAD)


def read_paper(
    question: str, question_vec: np.ndarray, paper: Unit, label_vecs: dict[str, np.ndarray]
) -> list[EvidenceSpan]:
    """Return the paper's evidence paragraphs for the question as spans (best first)."""
    blocks = paper.blocks
    labels = [b.label for b in blocks]
    scores = paragraph_scores(
        question, question_vec, [b.text for b in blocks], labels, np.stack([label_vecs[label] for label in labels])
    )
    picks = pick_paragraphs(scores)
    probabilities = confidence_head().predict(zscore(scores)[picks, None]) if picks else []
    return [
        EvidenceSpan(b.docid, b.start, b.end, b.text, b.page, float(p), 1.0, question, "paragraph")
        for i, p in zip(picks, probabilities, strict=True)
        for b in [blocks[i]]
    ]


def read_papers(ctx: RunContext, questions: list[str], papers: list[Unit]) -> list[EvidenceSpan]:
    """System 1 reads every paragraph of each paper for each question; record, deliver and return the picks."""
    from ...encode import get_embedder

    ctx.log("reading", {"docids": [paper.docid for paper in papers]})
    embedder = get_embedder()
    questions = list(dict.fromkeys(questions))
    names = sorted({b.label for paper in papers for b in paper.blocks})
    vectors = embedder.embed([*questions, *names])
    label_vecs = dict(zip(names, vectors[len(questions) :], strict=True))
    spans: list[EvidenceSpan] = []
    for question, question_vec in zip(questions, vectors, strict=False):
        for paper in papers:
            found = read_paper(question, question_vec, paper, label_vecs)
            best = {paper.docid: max((s.probability for s in found), default=0.0)}
            ctx.recorder.judgments(question, [paper], best, found, provider=ctx.judge_spec.name)
            spans.extend(found)
    paragraphs = sum(len(p.blocks) for p in papers)
    ctx.log("paper_reading", {"papers": len(papers), "paragraphs": paragraphs, "picked": len(spans)})
    return ctx.recorder.deliver(sorted(spans, key=lambda s: -s.probability))


def answer_in_papers(ctx: RunContext, plan: Plan, papers: list[Unit]) -> Outcome:
    """Search (for the record), read each scoped paper's paragraphs, deliver the picks and answer from them."""
    ctx.tools.hits(plan.queries[0], "Search the scoped paper for the question's terms.")
    read_papers(ctx, [plan.question], papers)
    answer = answer_from(ctx, plan, min_probability=0.0)  # the reader's picks are the selection: cite them all
    return Outcome("answered" if answer.citations else "no_new_passages", answer)
