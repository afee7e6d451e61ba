"""A run's answer as people and programs read it: the explanation split into text and numbered citation links, the
short answer's state in words, which reader gave it, and the run's citations in order.

One presenter below views/, api/ and mcp_tools: each turns a run's `StoredAnswer` into its own page pieces or
payloads through these functions, and exports (presenting/exports.py) print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings

from ..models import Citation, Run
from ..stored_answer import StoredAnswer

MARKER = re.compile(r"\[([^\[\]]{1,200})\]")


@dataclass
class AnswerPiece:
    text: str
    citation: Citation | None = None
    number: int | None = None
    marker: str = ""
    mark: bool = False  # the short answer, highlighted inside its sentence


def answer_pieces(run: Run, citations: list[Citation]) -> list[AnswerPiece]:
    """Split the explanation into text and [docid] markers, each marker linked to its citation's span.

    The n-th occurrence of a docid's marker links the n-th citation carrying that marker (the order the
    loop writes them); a marker naming a document of the collection with no citation stays plain, never a guessed
    link; brackets that name no document (a paper's own "[15, 43]") are the quoted text, not markers. The short
    answer's range (answer["highlight"]) is marked inside its sentence.
    """
    stored = StoredAnswer.of(run)
    explanation = stored.explanation
    by_marker: dict[str, list[Citation]] = {}
    for citation in citations:
        by_marker.setdefault(citation.marker, []).append(citation)
    numbers = {citation.pk: index for index, citation in enumerate(citations, start=1)}
    matches = list(MARKER.finditer(explanation))
    named = {_docid(d) for m in matches for d in re.split(r"\s*,\s*", m.group(1).strip())}
    known = set(run.collection.documents.filter(docid__in=named).values_list("docid", flat=True)) if named else set()
    used: dict[str, int] = {}
    pieces: list[tuple[int, AnswerPiece]] = []  # (start offset in the explanation, piece)
    position = 0
    for match in matches:
        docids = [_docid(d) for d in re.split(r"\s*,\s*", match.group(1).strip())]
        if not any(f"[{d}]" in by_marker or d in known for d in docids):
            continue  # the source's own bracket: part of the quoted text
        if match.start() > position:
            pieces.append((position, AnswerPiece(explanation[position : match.start()])))
        for docid in docids:
            marker = f"[{docid}]"
            candidates = by_marker.get(marker, [])
            if not candidates:
                pieces.append((match.start(), AnswerPiece(marker, marker=marker)))
                continue
            index = min(used.get(marker, 0), len(candidates) - 1)
            used[marker] = index + 1
            citation = candidates[index]
            pieces.append(
                (match.start(), AnswerPiece(marker, citation=citation, number=numbers[citation.pk], marker=marker))
            )
        position = match.end()
    if position < len(explanation):
        pieces.append((position, AnswerPiece(explanation[position:])))
    return _marked(pieces, stored.highlight)


def short_answer_view(run: Run) -> dict[str, object]:
    """How the page states the short answer: shown, withheld below the threshold, or not found in the collection."""
    stored = StoredAnswer.of(run)
    state = {"short_answer": "short", "no_short_answer": "withheld"}.get(stored.outcome, stored.outcome)
    return {
        "state": state,
        "text": stored.exact_answer,
        "confidence": stored.confidence,
        "candidate": stored.candidate,
        "p_right": stored.p_right,
        "offline": not settings.OPENAI_API_KEY and not run.calls,
        "reader_note": reader_note(stored.reading),
    }


def reader_note(reading: dict[str, object]) -> str:
    """Which reader gave the short answer, in a sentence (empty for runs from before the reader model)."""
    if reading.get("backend") == "model":
        return "Short answer read from the best evidence sentences by the language model."
    if reading.get("fallback"):
        return f"The language model did not answer ({reading['fallback']}): the extractive reader gave this answer."
    return ""


def _docid(text: str) -> str:
    return text.removeprefix("docid=").strip()


def _marked(pieces: list[tuple[int, AnswerPiece]], highlight: tuple[int, int] | None) -> list[AnswerPiece]:
    """Split the text piece holding the highlight range into before, the marked short answer, and after."""
    if highlight is None:
        return [piece for _, piece in pieces]
    lo, hi = highlight
    out: list[AnswerPiece] = []
    for start, piece in pieces:
        end = start + len(piece.text)
        if piece.marker or not (start <= lo < hi <= end):
            out.append(piece)
            continue
        text = piece.text
        out += [AnswerPiece(text[: lo - start]), AnswerPiece(text[lo - start : hi - start], mark=True)]
        out.append(AnswerPiece(text[hi - start :]))
    return [piece for piece in out if piece.text]


def run_citations(run: Run) -> list[Citation]:
    return list(Citation.objects.filter(run=run).select_related("span__document").order_by("answer_part", "id"))
