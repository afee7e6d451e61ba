"""The general System 1 reader for a question over a whole collection, chosen from the question's candidates.

When the search's best documents are long (papers, reports), System 1 reads every sentence of the one that
dominates the hits (or of the top two when neither does), skipping front matter, reference lists and running
headers, and cites the sentences that best state what the question asks for. Short documents (abstracts,
paragraphs) go to evidence localization instead (dual.py). The exact answer is cut from a cited sentence by
the question's kind (exact.py); its confidence is P(answer right) from a calibrated head, and below
ABSTAIN_BELOW the answer is "not found in this collection", with the closest evidence still shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ..judge.features import terms
from ..judge.heads import PARAMS_DIR, Head, sigmoid
from ..judge.localize import EvidenceSpan
from ..judge.sentences import TYPE_BONUS, body_flags, question_terms, score_sentences, split_scope, summary_section
from ..judge.types import Block, Unit
from ..retrieval.types import Hit
from .answer import Answer
from .context import Outcome, RunContext
from .exact import asked_noun, candidates, head_candidates, question_kind
from .planner import QUESTION_WORDS, Plan
from .units import load_document_units

LONG_DOCUMENT = 30  # sentences: a document this long is read whole, sentence by sentence
SECOND_PAPER = 0.8  # the runner-up is read too when its hit score is within this share of the best
CITED = 3
NAMED_BONUS = 1.0  # in TYPE_BONUS units
ABSTAIN_BELOW = 0.08
ABSTAIN_COVERAGE = 0.35  # abstain when a question term is absent and the cited neighbourhood covers less than this
ABSTAINED_CONFIDENCE = 0.05
DETAIL_KINDS = ("count", "quantity", "percentage", "year", "name")
SUMMARY_PENALTY = 1.0  # in z units: a sentence of the abstract, introduction or conclusion, for a detail
SCOPE_WEIGHT = 0.1  # the weight of the terms only the question's document-naming phrase holds
NOT_FOUND = "Not found in this collection"
ANSWER_HEAD, SPAN_HEAD = "qa_answer", "qa_span"
ANSWER_FEATURES = (
    "top_score",
    "margin",
    "coverage",
    "has_candidate",
    "candidate_score",
    "cosine",
    "absent",
    "uncovered",
)
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


@cache
def _head(name: str) -> Head | None:
    return Head.load(name) if (PARAMS_DIR / f"{name}.json").exists() else None


def calibrated(name: str, features: dict[str, float], fallback: float) -> float:
    """Return a head's probability for one feature row, or sigmoid(fallback) before the head is fitted."""
    head = _head(name)
    if head is None:
        return float(sigmoid(np.asarray([fallback]))[0])
    return float(head.predict(np.asarray([[features[f] for f in head.features]], dtype=float))[0])


def read_whole(question: str, papers: list[Unit]) -> tuple[list[Block], dict[str, np.ndarray]]:
    """Score every body sentence of the papers for the question; return the candidates and their scores."""
    from ..ingest.embedding import get_embedder

    kind = question_kind(question)
    blocks, neighbours = [], []
    for paper in papers:
        junk = body_flags(list(paper.blocks), paper.title)
        for i, block in enumerate(paper.blocks):
            if not junk[i]:
                blocks.append(block)
                lo, hi = max(0, i - 1), min(len(paper.blocks), i + 2)
                neighbours.append(" ".join(b.text for b in paper.blocks[lo:hi]))
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
    found = [candidates(question, b.text, kind) for b in blocks]
    type_match = np.array([float(kind != "yes_no" and bool(c) and c[0].score > 0) for c in found])
    # A number in the unit the asked measure is written in ("0.1 mg/mL" for a concentration).
    type_match = type_match + np.array([float(any(x.fits for x in c[:3])) for c in found])
    if kind == "name" and asked_noun(question):
        # A sentence naming the asked thing ("the lateral thigh muscle", "state 49") holds what is asked.
        named = np.array([float(bool(head_candidates(question, " ".join(b.text.split())))) for b in blocks])
        type_match = type_match + NAMED_BONUS * named
    if kind in DETAIL_KINDS:
        # A detail (a count, a name...) is stated where the work is described; abstracts, introductions and
        # conclusions restate the paper's topic in the question's words without it.
        type_match = type_match - SUMMARY_PENALTY / TYPE_BONUS * np.array(
            [float(summary_section(b.label)) for b in blocks]
        )
    weights = question_terms(question, sorted(QUESTION_WORDS), SCOPE_WEIGHT)
    scores = score_sentences(weights, question_vec, [b.text for b in blocks], vectors, neighbours, type_match)
    best_candidate = np.array([c[0].score if c else 0.0 for c in found])
    vocabulary = {t for paper in papers for b in paper.blocks for t in terms(b.text)}
    focus_terms = [t for t in question_terms(focus or question, sorted(QUESTION_WORDS))]
    absent = sum(t not in vocabulary for t in focus_terms) / max(len(focus_terms), 1)
    return blocks, {
        "absent": np.full(len(blocks), absent),
        "score": scores.score,
        "coverage": scores.coverage,
        "cosine": scores.cosine,
        "type_match": type_match,
        "candidate_score": best_candidate,
    }


@dataclass(frozen=True)
class Choice:
    order: list[int]  # the cited sentences, best first
    pick: int  # the sentence the exact answer is cut from
    exact: str  # "" when no cited sentence holds a candidate
    features: dict[str, float]  # the answer head's inputs


def span_row(s: dict[str, np.ndarray], i: int, rank: int) -> dict[str, float]:
    """Return the span head's inputs for one cited sentence."""
    return {
        "score": float(s["score"][i]),
        "rank": float(rank),
        "coverage": float(s["coverage"][i]),
        "cosine": float(s["cosine"][i]),
    }


def choose(question: str, blocks: list[Block], s: dict[str, np.ndarray]) -> Choice:
    """Pick the sentences to cite and cut the exact answer from the cited one whose candidate and score are best."""
    kind = question_kind(question)
    order = [int(i) for i in np.argsort(-s["score"], kind="stable")[:CITED]]
    pick, exact, candidate_score = order[0], "", 0.0
    best_total = -np.inf
    found_in = {i: candidates(question, blocks[i].text, kind) for i in order}
    # A number in the unit of the asked measure ("0.1 mg/mL" for a concentration) beats a bare number.
    fitting = [i for i in order if found_in[i] and found_in[i][0].fits]
    for i in fitting or order:
        found = found_in[i]
        if found:
            total = float(s["score"][i]) + 0.5 * min(found[0].score, 4.0)
            if total > best_total:
                best_total, pick, exact, candidate_score = total, i, found[0].text, found[0].score
    top = float(s["score"][order[0]])
    second = float(s["score"][order[1]]) if len(order) > 1 else top - 1.0
    features = {
        "top_score": top,
        "margin": top - second,
        "coverage": float(s["coverage"][pick]),
        "has_candidate": float(bool(exact)),
        "candidate_score": candidate_score,
        "cosine": float(s["cosine"][pick]),
        "absent": float(s["absent"][pick]),
        # a question term the papers never write, and the cited sentence's neighbourhood misses the others
        "uncovered": float(s["absent"][pick] > 0) * (1.0 - float(s["coverage"][pick])),
    }
    return Choice(order, pick, exact, features)


def answer_whole_papers(ctx: RunContext, plan: Plan, papers: list[Unit]) -> Outcome:
    """Read the papers sentence by sentence, deliver and cite the best sentences, and answer by question kind."""
    question = plan.question
    ctx.trajectory.add("inspected", [p.docid for p in papers])
    ctx.log("reading", {"docids": [p.docid for p in papers]})  # the page's "reading N documents…" line
    blocks, s = read_whole(question, papers)
    if not blocks:
        return Outcome("no_new_passages", Answer(NOT_FOUND, NOT_FOUND, 0.0))
    choice = choose(question, blocks, s)
    order, pick, exact, features = choice.order, choice.pick, choice.exact, choice.features
    spans = []
    for rank, i in enumerate(order):
        row = span_row(s, i, rank)
        p = calibrated(SPAN_HEAD, row, row["score"] - 3.0)
        b = blocks[i]
        spans.append((EvidenceSpan(b.docid, b.start, b.end, b.text, b.page, p, 1.0, question, "sentence"), row))
    for paper in papers:
        chosen = [sp for sp, _ in spans if sp.docid == paper.docid]
        ctx.record_judgments(
            question, [paper], {paper.docid: max((x.probability for x in chosen), default=0.0)}, chosen
        )
    ctx.log("paper_reading", {"papers": len(papers), "sentences": len(blocks), "picked": len(spans), "reader": "whole"})
    ctx.deliver([sp for sp, _ in spans])
    kind = question_kind(question)
    top = features["top_score"]
    confidence = calibrated(ANSWER_HEAD, features, top - 3.0)
    cited = [sp for sp, _ in spans]
    lead = next(sp for sp in cited if sp.start == blocks[pick].start and sp.docid == blocks[pick].docid)
    cited = [lead] + [sp for sp in cited if sp is not lead]
    sentences = [f"{' '.join(sp.quote.split())} [{sp.docid}]" for sp in cited]
    exact_candidate = exact
    # Evidence coverage: a term of what the question asks that the papers never write ("dropout", "GPU"), with the
    # cited sentence's neighbourhood missing most of the others, means the papers do not say it.
    uncovered = features["absent"] > 0 and features["coverage"] < ABSTAIN_COVERAGE
    if not exact or confidence < ABSTAIN_BELOW or uncovered:
        confidence = min(confidence, ABSTAINED_CONFIDENCE)  # P(right) of an abstention: it answers nothing
        explanation = f"{NOT_FOUND}. The closest evidence: " + " ".join(sentences)
        exact = NOT_FOUND
    else:
        explanation = " ".join(sentences)
    answer = Answer(
        explanation=explanation,
        exact_answer=exact,
        confidence=confidence,
        citations=list(enumerate(cited)),
        signals={
            "reader": "whole",
            "kind": kind,
            "candidate": exact_candidate,
            "answer": features,
            "spans": [{"docid": sp.docid, "start": sp.start, "end": sp.end, **row} for sp, row in spans],
        },
    )
    ctx.trajectory.add("cited", [sp.docid for sp in cited])
    return Outcome("answered", answer)
