"""Answers from delivered spans: whole sentences in reading order with [docid] citations, and the short answer.

The short answer and its P(right) come from the answer layer (evidence/answers/layer.py), for every system and
reader. The explanation quotes the cited spans whole, in the order they stand in their documents; the short
answer's place inside its sentence is kept, so the page can highlight it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ...answers.layer import ShortAnswer, short_answer
from ...answers.ranker_rows import Sentence
from ...judge import EvidenceSpan


class ReaderModel(Protocol):
    """(question, evidence sentences best first, the extractive answer, whether the collection answers, titles,
    each table row's caption and header) -> the reader's Reading (evidence/reader/reading.py)."""

    def __call__(
        self,
        question: str,
        sentences: Sequence[Sentence],
        short: ShortAnswer,
        found: bool,
        titles: Sequence[str] | None,
        tables: Sequence[str] | None = None,
    ) -> Any: ...


@dataclass
class Answer:
    explanation: str
    exact_answer: str
    confidence: float
    citations: list[tuple[int, EvidenceSpan]] = field(default_factory=list)  # (explanation sentence index, span)
    dropped_citations: int = 0
    ranking: list[dict[str, object]] = field(default_factory=list)
    signals: dict[str, object] = field(default_factory=dict)  # what the reader based its confidence on
    highlight: list[int] | None = None  # [start, end] of the short answer inside the explanation
    found: bool = True  # False: the collection does not answer the question (the run ends "not_found")

    def as_dict(self) -> dict[str, object]:
        return {
            **({"signals": self.signals} if self.signals else {}),
            "explanation": self.explanation,
            "exact_answer": self.exact_answer,
            "confidence": round(self.confidence, 4),
            "dropped_citations": self.dropped_citations,
            "ranking": self.ranking,
            **({"highlight": self.highlight} if self.highlight else {}),
            **({} if self.found else {"not_found": True}),
        }


NO_EVIDENCE = "No evidence for this question was found in the collection."
NOT_FOUND = "Not found in this collection"
UNANSWERABLE = "Unanswerable"
ABSTAINED_CONFIDENCE = 0.0  # P(a right answer was given) when the run answers "not found"


def as_sentences(spans: Sequence[EvidenceSpan]) -> list[Sentence]:
    """Return spans (best first) as the answer layer's evidence sentences, scored by the logit of their p."""
    return [
        Sentence(span.quote, rank, _logit(span.probability), float(span.probability)) for rank, span in enumerate(spans)
    ]


def _logit(p: float) -> float:
    p = min(max(float(p), 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def compose_extractive(
    question: str,
    spans: list[EvidenceSpan],
    max_sentences: int = 3,
    min_probability: float = 0.2,
    evidence: int = 6,
    threshold: float | None = None,
    reader: ReaderModel | None = None,
) -> Answer:
    """Answer from the best spans: the answer layer reads the best `evidence` of them; cite up to max_sentences.

    `reader` (a run's, from core/steps.py) lets the reader model give the short answer (evidence/reader); without
    it the extractive layer's answer stands.
    """
    ranked = sorted(spans, key=lambda span: (-span.probability, span.docid, span.start))
    chosen: list[EvidenceSpan] = []
    for span in ranked:
        if span.probability < min_probability or len(chosen) >= evidence:
            break
        if not any(_overlaps(span, other) for other in chosen):
            chosen.append(span)
    if not chosen:
        return Answer(explanation=NO_EVIDENCE, exact_answer=UNANSWERABLE, confidence=0.0, found=False)
    from ...encode import get_embedder

    sentences = as_sentences(chosen)
    short = short_answer(question, sentences, embed=get_embedder().embed, threshold=threshold)
    found = bool(short.text)
    if reader is not None:
        reading = reader(question, sentences, short, found, None)
        short, found = reading.short, reading.found
    if not short.shown:
        # A withheld answer does not choose the citations: System 1's best sentences are cited, as they rank.
        short = replace(short, sentence=None)
    # System 1 delivered these spans above its own threshold: the collection answers unless no candidate is found
    # (the fitted "not found" model reads whole-paper reading's signals, which these shapes do not give).
    return compose(chosen, short, max_sentences, found=found)


def is_verdict(short: ShortAnswer) -> bool:
    """Whether a short answer is a yes/no verdict read from a sentence ("No", with no range of its own)."""
    return short.text in ("Yes", "No") and short.sentence is not None and short.end <= short.start


def compose(
    spans: list[EvidenceSpan],
    short: ShortAnswer,
    max_sentences: int = 3,
    found: bool = True,
    signals: dict[str, Any] | None = None,
) -> Answer:
    """Write the answer: the short answer's sentence and the best others, whole, in reading order, cited.

    `spans` are the evidence sentences best first (the ones the answer layer read); `found` False answers
    "not found in this collection", still quoting the closest evidence.
    """
    lead = short.sentence if short.sentence is not None else 0
    cited = [spans[lead], *[s for i, s in enumerate(spans) if i != lead][: max_sentences - 1]]
    documents = list(dict.fromkeys(s.docid for s in cited))
    in_order = sorted(cited, key=lambda s: (documents.index(s.docid), s.start))
    parts: list[str] = []
    highlight = None
    offset = 0
    if not found:
        parts.append(f"{NOT_FOUND}. The closest evidence:")
        offset = len(parts[0]) + 1
    for span in in_order:
        text = span.quote
        if found and short.shown and span is spans[lead]:
            if short.end > short.start:
                highlight = [offset + short.start, offset + short.end]  # the quote is kept whole: its offsets hold
            elif is_verdict(short):
                highlight = [offset, offset + len(text)]  # a yes/no verdict rests on its whole sentence
        sentence = f"{text} [{span.docid}]"
        parts.append(sentence)
        offset += len(sentence) + 1
    explanation = " ".join(parts)
    if found:
        exact, confidence = short.display, short.probability
    else:
        exact, confidence = NOT_FOUND, ABSTAINED_CONFIDENCE
    citations = [(index, span) for index, span in enumerate(in_order)]
    return Answer(
        explanation=explanation,
        exact_answer=exact,
        confidence=confidence,
        citations=citations,
        highlight=highlight,
        found=found,
        signals={
            "kind": short.kind,
            "candidate": short.text,
            "shown": short.shown,
            "p_right": round(short.probability, 4),
            "alternatives": short.alternatives,
            "answer": short.signals,
            **({"reading": short.reader} if short.reader else {}),
            **(signals or {}),
        },
    )


def _overlaps(a: EvidenceSpan, b: EvidenceSpan) -> bool:
    return a.docid == b.docid and a.start < b.end and b.start < a.end


CITATION = re.compile(r"\[([^\[\]]{1,200})\]")


def attach_citations(explanation: str, delivered: list[EvidenceSpan]) -> tuple[list[tuple[int, EvidenceSpan]], int]:
    """Map each inline [docid] of an explanation to the best delivered span of that document.

    Returns (sentence index, span) pairs and the number of citations dropped because the docid had no
    delivered span (made-up or undelivered ids).
    """
    best: dict[str, EvidenceSpan] = {}
    for span in delivered:
        if span.docid not in best or span.probability > best[span.docid].probability:
            best[span.docid] = span
    sentences = re.split(r"(?<=[.!?])\s+", explanation.strip())
    citations: list[tuple[int, EvidenceSpan]] = []
    dropped = 0
    for index, sentence in enumerate(sentences):
        for match in CITATION.finditer(sentence):
            for docid in re.split(r"\s*,\s*", match.group(1).strip()):
                docid = docid.removeprefix("docid=").strip()
                if docid in best:
                    if (index, best[docid]) not in citations:
                        citations.append((index, best[docid]))
                else:
                    dropped += 1
    return citations, dropped
