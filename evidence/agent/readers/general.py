"""Whole-paper reading (the "whole" shape): System 1 scores every sentence of the long documents a question is
about, asked of a whole collection or of the papers a run is scoped to, chosen from the question's candidates.

When the search's best documents are long (papers, reports), System 1 reads every sentence of the one that
dominates the hits (or of the top two when neither does), skipping front matter, reference lists and running
headers, and cites the sentences that best state what the question asks for. Short documents (abstracts,
paragraphs) go to evidence localization instead (dual.py). The exact answer is cut from a cited sentence by
the question's kind (answers/layer.py); its confidence is P(answer right) from a calibrated head, and below
ABSTAIN_BELOW the answer is "not found in this collection", with the closest evidence still shown.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np

from ...answers.candidates import holds_kind
from ...answers.layer import found_in_collection, short_answer
from ...answers.ranker_rows import Sentence
from ...judge import (
    PARAMS_DIR,
    RANK_FEATURES,
    TYPE_BONUS,
    Block,
    EvidenceSpan,
    Head,
    Unit,
    body_flags,
    nearest_captions,
    question_terms,
    rank_features,
    score_sentences,
    sigmoid,
    split_scope,
    summary_flags,
)
from ...retrieval import Hit
from ...text import HEADER_MARK, analyse, column_headers, is_row, missing_names, table_frames, table_leads, terms
from ..core import (
    NOT_FOUND,
    QUESTION_WORDS,
    SCOPED_PASSAGE_LIMIT,
    Answer,
    Outcome,
    Plan,
    RunContext,
    compose,
    load_document_units,
    reader_of,
)

LONG_DOCUMENT = 30  # sentences: a document this long is read whole, sentence by sentence
SECOND_PAPER = 0.8  # the runner-up is read too when its hit score is within this share of the best
CITED = 3
DETAIL_KINDS = ("count", "quantity", "percentage", "year", "name")
SUMMARY_PENALTY = 1.0  # in z units: a sentence of the abstract, introduction or conclusion, for a detail
SCOPE_WEIGHT = 0.1  # the weight of the terms only the question's document-naming phrase holds
SPAN_HEAD = "qa_span"
RANK_HEAD = "sentence_rank"  # bench/answers/fit_sentence_ranker.py: fitted on dev and dev2 part A
SPAN_FEATURES = ("score", "rank", "coverage", "cosine")


def papers_to_read(ctx: RunContext, hits: list[Hit]) -> list[Unit]:
    """Return the long documents to read whole: the top hit's, plus the runner-up's when it is close; else []."""
    best: dict[str, float] = {}
    for hit in hits[:20]:
        best.setdefault(hit.docid, hit.score)
    ranked = list(best.items())[:2]
    if not ranked:
        return []
    chosen = [ranked[0][0]] + [d for d, s in ranked[1:] if s >= SECOND_PAPER * ranked[0][1]]
    units = load_document_units(ctx.run.collection_id, chosen, "sentence", with_vectors=True)
    if not units or units[0].docid != ranked[0][0] or len(units[0].blocks) < LONG_DOCUMENT:
        return []
    return [u for u in units if len(u.blocks) >= LONG_DOCUMENT]


def scoped_papers_to_read(ctx: RunContext) -> list[Unit]:
    """A run asked about up to three documents ("Ask about this document"): those of them long enough to read
    whole, sentence by sentence, as the whole collection's question reads its best papers; else []."""
    scope = ctx.tools.scope
    if not scope or len(scope) > SCOPED_PASSAGE_LIMIT:
        return []
    units = load_document_units(ctx.run.collection_id, sorted(scope), "sentence", with_vectors=True)
    return [u for u in units if len(u.blocks) >= LONG_DOCUMENT]


@cache
def _head(name: str) -> Head | None:
    return Head.load(name) if (PARAMS_DIR / f"{name}.json").exists() else None


def calibrated(name: str, features: dict[str, float], fallback: float) -> float:
    """Return a head's probability for one feature row, or sigmoid(fallback) before the head is fitted."""
    head = _head(name)
    if head is None:
        return float(sigmoid(np.asarray([fallback]))[0])
    return float(head.predict(np.asarray([[features[f] for f in head.features]], dtype=float))[0])


def score_paper_sentences(question: str, papers: list[Unit]) -> tuple[list[Block], dict[str, np.ndarray]]:
    """Score every body sentence of the papers for the question; return the candidates and their scores."""
    from ...encode import get_embedder

    asked = analyse(question)
    blocks, neighbours, captions, positions, tables, summary_of = [], [], [], [], [], []
    for paper in papers:
        junk = body_flags(list(paper.blocks), paper.title)
        above = nearest_captions([b.text for b in paper.blocks])
        texts = [b.text for b in paper.blocks]
        frames = table_frames(texts)
        headers = column_headers(texts)
        leads = table_leads(texts, frames) if TABLE_LEADS else [""] * len(texts)
        in_summary = summary_flags([b.label for b in paper.blocks])
        for i, block in enumerate(paper.blocks):
            if not junk[i]:
                blocks.append(block)
                summary_of.append(float(in_summary[i]))
                caption, header = frames[i]
                caption = caption or above[i]  # the caption above the table, else the nearest one
                table = table_of(block.text, caption, header)
                lo, hi = max(0, i - 1), min(len(paper.blocks), i + 2)
                # A sentence is read with its neighbours; a table row with its table's caption and header, and a
                # table without a caption of its own with the sentences that introduce it (R's console output).
                lead = f"{leads[i]} " if leads[i] else ""
                around = " ".join(b.text for b in paper.blocks[lo:hi])
                neighbours.append(f"{lead}{table} {block.text}" if table or lead else around)
                captions.append(f"{caption} {lead}{header}")
                positions.append(i / max(len(paper.blocks) - 1, 1))
                # The reader names a row's cells by the header, or by the key row above it ("dataset 10k 20k ...").
                tables.append(table_of(block.text, caption, headers[i]))
    if not blocks:
        return [], {}
    focus, _scope = split_scope(question)
    embedder = get_embedder()
    question_vec = embedder.embed([focus or question])[0]
    missing = [i for i, b in enumerate(blocks) if b.vector is None]
    fresh = embedder.embed([blocks[i].text for i in missing]) if missing else None
    vectors = np.stack(
        [b.vector if b.vector is not None else fresh[missing.index(i)] for i, b in enumerate(blocks)]  # type: ignore[index]
    )
    # A sentence that holds what is asked (a number in the asked measure's unit, a name...) is preferred.
    held = [holds_kind(" ".join(b.text.split()), asked) for b in blocks]
    type_match = np.array([float(h) + float(f) for h, f in held])
    summary = np.array(summary_of)
    if asked.kind in DETAIL_KINDS:
        # A detail (a count, a name...) is stated where the work is described; abstracts, introductions and
        # conclusions restate the paper's topic in the question's words without it.
        type_match = type_match - SUMMARY_PENALTY / TYPE_BONUS * summary
    weights = question_terms(question, sorted(QUESTION_WORDS), SCOPE_WEIGHT)
    texts = [b.text for b in blocks]
    scores = score_sentences(weights, question_vec, texts, vectors, neighbours, type_match)
    features = rank_features(weights, scores, texts, captions, type_match, np.asarray(positions), summary)
    ranker = _head(RANK_HEAD)
    vocabulary = {t for paper in papers for b in paper.blocks for t in terms(b.text)}
    focus_terms = [t for t in question_terms(focus or question, sorted(QUESTION_WORDS))]
    absent = sum(t not in vocabulary for t in focus_terms) / max(len(focus_terms), 1)
    return blocks, {
        "absent": np.full(len(blocks), absent),
        "score": scores.score,
        "coverage": scores.coverage,
        "cosine": scores.cosine,
        "type_match": type_match,
        # The order the reader model reads them in: the fitted sentence ranker's, else the score's.
        "rank": ranker.raw(ranker.select(features, RANK_FEATURES)) if ranker is not None else scores.score,
        "features": features,
        "tables": np.array(tables, dtype=object),
    }


# A row of a table with no caption of its own is scored with the sentences above the table (its console command,
# "giving the following result:"), as a captioned table's rows are with their caption.
TABLE_LEADS = True
TABLE_CAPTION_WORDS = 12  # of a row's caption, shown to the reader beside the row


def table_of(text: str, caption: str, header: str) -> str:
    """What a table row needs beside it to be read: its table's caption (its first words) and its header."""
    if not is_row(text):
        return ""
    short = " ".join(caption.split()[:TABLE_CAPTION_WORDS])
    parts = [short, f"{HEADER_MARK}{header}" if header else ""]
    return "; ".join(part for part in parts if part)


EVIDENCE_K = 6  # sentences the answer layer cuts candidates from (the best by the sentence score)


def reading_k() -> int:
    """How many of the best sentences are delivered: the answer layer's EVIDENCE_K, or as many as the reader model
    may read when more: EVIDENCE_READER_SENTENCES, then SECOND_LOOK more when they give no answer (it reads them
    within its word budget, reader/reading.py)."""
    from django.conf import settings

    from ...reader.reading import SECOND_LOOK

    return max(EVIDENCE_K, int(settings.EVIDENCE_READER_SENTENCES) + SECOND_LOOK)


def top_sentences(s: dict[str, np.ndarray], k: int | None = None) -> list[tuple[int, Sentence]]:
    """Return the k best-scored sentences (default reading_k()) as (block index, the answer layer's view of
    it), best first."""
    order = [int(i) for i in np.argsort(-s.get("rank", s["score"]), kind="stable")[: k or reading_k()]]
    out = []
    for rank, i in enumerate(order):
        row = span_row(s, i, rank)
        p = calibrated(SPAN_HEAD, row, row["score"] - 3.0)
        out.append((i, Sentence("", rank, float(s["score"][i]), p, float(s["coverage"][i]))))
    return out


def span_row(s: dict[str, np.ndarray], i: int, rank: int) -> dict[str, float]:
    """Return the span head's inputs for one cited sentence."""
    return {
        "score": float(s["score"][i]),
        "rank": float(rank),
        "coverage": float(s["coverage"][i]),
        "cosine": float(s["cosine"][i]),
    }


def answer_whole_papers(ctx: RunContext, plan: Plan, papers: list[Unit]) -> Outcome:
    """Read the papers sentence by sentence, deliver the best sentences, and answer through the answer layer."""
    from ...encode import get_embedder

    question = plan.question
    ctx.log("reading", {"docids": [p.docid for p in papers]})  # the page's "reading N documents…" line
    blocks, s = score_paper_sentences(question, papers)
    if not blocks:
        return Outcome("no_new_passages", Answer(NOT_FOUND, NOT_FOUND, 0.0))
    top = [(i, replace(sentence, text=blocks[i].text, position=(blocks[i].docid, blocks[i].start)))
           for i, sentence in top_sentences(s)]  # fmt: skip
    absent = float(s["absent"][0])
    context = " ".join(b.text for paper in papers for b in paper.blocks)
    short = short_answer(
        question,
        [sentence for _, sentence in top[:EVIDENCE_K]],  # the reader model may read more than the layer
        absent=absent,
        context=context,
        embed=get_embedder().embed,
        threshold=ctx.config.answer_threshold,
    )
    spans = [
        EvidenceSpan(b.docid, b.start, b.end, b.text, b.page, sentence.probability, 1.0, question, "sentence")
        for i, sentence in top
        for b in [blocks[i]]
    ]
    titles = {paper.docid: paper.title or "" for paper in papers}
    reading = reader_of(ctx)(
        question,
        [sentence for _, sentence in top],
        short,
        found_in_collection(short),
        [titles.get(blocks[i].docid, "") for i, _ in top],
        [str(s["tables"][i]) for i, _ in top],
    )
    short = reading.short
    for paper in papers:
        chosen = [sp for sp in spans[:CITED] if sp.docid == paper.docid]
        best = {paper.docid: max((x.probability for x in chosen), default=0.0)}
        ctx.recorder.judgments(question, [paper], best, chosen, provider=ctx.judge_spec.name)
    ctx.log("paper_reading", {"papers": len(papers), "sentences": len(blocks), "picked": CITED, "reader": "whole"})
    # Cited: the sentence the short answer is cut from, then the best others, up to CITED.
    lead = short.sentence if short.sentence is not None else 0
    cited = [spans[lead], *[sp for j, sp in enumerate(spans) if j != lead][: CITED - 1]]
    ctx.recorder.deliver(cited)
    evidence_rows = [
        {"docid": blocks[i].docid, "start": blocks[i].start, "end": blocks[i].end, "rank": sentence.rank,
         "score": round(sentence.score, 4), "probability": round(sentence.probability, 4),
         "coverage": round(sentence.coverage or 0.0, 4)}
        for i, sentence in top
    ]  # fmt: skip
    signals = {"reader": "whole", "evidence": evidence_rows}
    # A name the question asks about (a dataset, a model: "MAVEN") that the papers read never write: without a
    # confident answer, the collection does not answer it (Not found, not "No short answer").
    missing = missing_names(question, context)
    found = reading.found and (short.shown or not missing)
    if missing:
        signals["missing_names"] = missing
    answer = compose(spans, short, CITED, found=found, signals=signals)
    return Outcome("answered", answer)
