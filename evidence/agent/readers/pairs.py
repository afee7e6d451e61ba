"""Pair reading for two-hop questions: System 1 picks the pair of supporting paragraphs, then their sentences.

Chosen by the question's shape (pair_candidates), never by a flag."""

from __future__ import annotations

import re

from ...judge import EvidenceSpan, Unit
from ...retrieval import Hit
from ..core import Outcome, Plan, RunContext, compose_extractive, ctx_units, load_document_units, reader_of

CANDIDATES = 10  # paragraphs read as pairs
SHORT_DOCUMENT = 12  # sentences: the typical candidate is a paragraph this short (median), which a pair reads whole
LONGEST_DOCUMENT = 40  # and none is longer: a paper's sections are read by the paper readers instead
MIN_TITLE = 4  # characters: shorter titles match too much text to mean a link
PARENTHESIS = re.compile(r"\([^)]*\)")  # "Kiss and Tell (1945 film)" is named as "Kiss and Tell"
WORD = re.compile(r"\w+")


def candidate_paragraphs(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Return the run's scoped documents (ranked ones first) or else the top hits, as units of sentences."""
    ranked = list(hits[:CANDIDATES])
    seen = {hit.docid for hit in ranked}
    ranked += [Hit(docid, 0.0) for docid in sorted(ctx.tools.scope) if docid not in seen]
    return ctx_units(ctx, ranked if ctx.tools.scope else ranked[:CANDIDATES])


def linked(question: str, units: list[Unit]) -> bool:
    """Whether two candidates are linked: both titles named in the question, or one's text naming another's title.

    That is the shape of a two-hop question over short paragraphs: a bridge (the answer's paragraph is named in
    the first one) or a comparison (the question names both).
    """
    titles = [_plain(PARENTHESIS.sub(" ", u.title)) for u in units]
    asked = _plain(question)
    if len({t for t in titles if len(t) >= MIN_TITLE + 2 and t in asked}) >= 2:
        return True
    texts = [_plain(u.text) for u in units]
    return any(
        i != j and len(title) >= MIN_TITLE + 2 and title in text
        for i, text in enumerate(texts)
        for j, title in enumerate(titles)
    )


def _plain(text: str) -> str:
    """Lower-cased words between single spaces, padded so that `in` matches whole words."""
    return " " + " ".join(WORD.findall(text.lower())) + " "


def pair_candidates(ctx: RunContext, plan: Plan, hits: list[Hit]) -> list[Unit] | None:
    """Return the candidates when the question reads as two linked paragraphs (pair reading), else None."""
    if not hasattr(ctx.judge, "multihop_support") or not (hits or ctx.tools.scope):
        return None
    units = candidate_paragraphs(ctx, hits)
    if len(units) < 2 or not linked(plan.question, units):
        return None
    whole = load_document_units(ctx.run.collection_id, [u.docid for u in units], "sentence")
    sizes = sorted(len(u.blocks) for u in whole)
    if len(whole) != len(units) or sizes[-1] > LONGEST_DOCUMENT or sizes[len(sizes) // 2] > SHORT_DOCUMENT:
        return None
    return units


def read_pairs(ctx: RunContext, plan: Plan, units: list[Unit]) -> Outcome:
    """Judge every paragraph pair, deliver the chosen sentences, and answer citing all of them."""
    ctx.log("reading", {"docids": list(dict.fromkeys(unit.docid for unit in units))})
    chosen = ctx.judge.multihop_support(plan.question, units)  # type: ignore[union-attr]
    spans = [
        EvidenceSpan(b.docid, b.start, b.end, b.text, b.page, p, 1.0, plan.question, b.kind)
        for u, picks in sorted(chosen.items())
        for b, p in ((units[u].blocks[i], p) for i, p in picks)
    ]
    best = {units[u].docid: max(p for _, p in picks) for u, picks in chosen.items() if picks}
    ctx.recorder.judgments(plan.question, units, best, spans, provider=ctx.judge_spec.name)
    ctx.log("paragraph_pair", {"docids": [units[u].docid for u in sorted(chosen)], "sentences": len(spans)})
    ctx.recorder.deliver(spans)
    answer = compose_extractive(
        plan.question,
        spans,
        max_sentences=len(spans),
        min_probability=0.0,
        threshold=ctx.config.answer_threshold,
        reader=reader_of(ctx),
    )
    return Outcome("answered" if answer.citations else "no_new_passages", answer)
