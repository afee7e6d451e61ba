"""A run's answer as people and programs read it: the explanation split into text and numbered citation links, the
short answer's state in words, which reader gave it, and the run's citations in order.

One presenter below views/, api/ and mcp_tools: each turns a run's `StoredAnswer` into its own page pieces or
payloads through these functions, and exports (presenting/exports.py) print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Citation, Run, Span
from ..run_state import StoredAnswer

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
        "reader_note": reader_note(stored.reading, shown=stored.shown),
    }


def reader_note(reading: dict[str, object], shown: bool = True) -> str:
    """Which reader read the evidence, in a sentence (empty for runs from before the reader model)."""
    if reading.get("backend") == "model":
        if not shown:
            return "The language model read the best evidence sentences; it found no answer sure enough to show."
        return "Short answer read from the best evidence sentences by the language model."
    if reading.get("fallback"):
        reason = reading["fallback"]
        if not shown:
            return f"The language model did not answer ({reason}); the extractive reader found none sure enough either."
        return f"The language model did not answer ({reason}): the extractive reader gave this answer."
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


# ---------------------------------------------------------------- the answer first: short answer, source, evidence

# Words for a calibrated P(right): each band says what the number means, no kinder than it is. A shown answer sits
# above its threshold (0.5 and up); a withheld one's guess is never put in these words as if it were an answer.
CONFIDENCE_BANDS = ((0.9, "very likely right"), (0.75, "likely right"), (0.6, "probably right"),
                    (0.5, "as likely wrong as right"), (0.0, "more likely wrong than right"))  # fmt: skip
CONTEXT_CHARS = 400  # how far a quote is widened, each side, to whole sentences
# Glyphs that PDF text carries into a quote and a reader does not read: bullets, footnote daggers, superscripts.
# A footnote number glued after a word's full stop ("on the benchmark.1 We") is a mark too.
NOISE = re.compile(r"[•▪◦●∙‣⁃†‡¹²³⁴⁵⁶⁷⁸⁹⁰]|(?<=[a-z]{3}[.,;:])\d{1,2}(?=\s|$)")


# Where a sentence ends inside a widened quote: terminal punctuation with any closing quote and footnote mark, then
# space; or a line that starts with a bullet.
SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*[¹²³⁴⁵⁶⁷⁸⁹⁰†‡*]{0,2}\s+|\n\s*[•▪◦●∙‣⁃]\s*")
QUOTE_ENDS = re.compile(r"[.!?][\"'”’)\]]*[¹²³⁴⁵⁶⁷⁸⁹⁰†‡*]{0,2}$")


def confidence_words(p: float | None) -> str:
    """A calibrated P(right) in words and as a percentage: "likely right, 82%" ("" when there is none)."""
    if p is None:
        return ""
    percent = round(100 * p)  # the band of the number shown: 74.97% reads 75%, "likely right"
    words = next(words for floor, words in CONFIDENCE_BANDS if percent >= 100 * floor)
    return f"{words}, {percent}%"


def readable(text: str) -> str:
    """A quote as a sentence is read: one line, no bullet glyphs or footnote marks (the audit shows it raw); a
    space at either end stays one space, so pieces of one sentence join as they stood."""
    words = " ".join(NOISE.sub(" ", text).split())
    if not words:
        return " " if text and text[0].isspace() else ""
    return (" " if text[0].isspace() else "") + words + (" " if text[-1].isspace() else "")


@dataclass
class EvidenceItem:
    """One cited span, numbered, widened to whole sentences: `before` and `after` are context, `quote` is the span."""

    number: int
    citation: Citation
    before: str
    quote: str
    after: str
    mark: tuple[int, int] | None = None  # the short answer inside `quote`, when it comes from this span

    @property
    def span(self) -> Span:
        return self.citation.span

    @property
    def parts(self) -> list[tuple[str, str]]:
        """(kind, text): "text" or "mark" pieces of the quote, readable, the short answer marked."""
        if self.mark is None:
            return [("text", readable(self.quote))]
        lo, hi = self.mark
        pieces = [("text", readable(self.quote[:lo])), ("mark", self.quote[lo:hi]), ("text", readable(self.quote[hi:]))]
        return [piece for piece in pieces if piece[1]]


@dataclass
class AnswerView:
    """A run's answer as the page leads with it: the short answer (or why there is none), its confidence in words,
    the sentence it comes from, then the evidence as numbered whole sentences."""

    state: str  # short | withheld | not_found | none
    text: str
    confidence: float | None
    confidence_words: str
    evidence: list[EvidenceItem]
    source: EvidenceItem | None  # the evidence item the short answer was read from
    explanation: list[AnswerPiece]  # a written explanation (a model's), [] when the answer only quotes the evidence
    candidate: str  # a withheld answer's rejected guess: never shown as the answer
    p_right: float | None
    reader_note: str
    dropped: int
    ranking: list[tuple[str, float]]  # a ranking task's documents, best first


def answer_view(run: Run, citations: list[Citation]) -> AnswerView:
    """Lay out a finished run's answer for the page (see AnswerView)."""
    stored = StoredAnswer.of(run)
    short = short_answer_view(run)
    pieces = answer_pieces(run, citations)
    quoted, marks = _quoted_by(pieces)
    numbers = {citation.pk: index for index, citation in enumerate(citations, start=1)}
    evidence = [_item(numbers[c.pk], c, marks.get(c.pk) if short["state"] == "short" else None) for c in citations]
    return AnswerView(
        state=str(short["state"]),
        text=stored.short_answer,
        confidence=stored.confidence if stored.shown else None,
        confidence_words=confidence_words(stored.confidence) if stored.shown else "",
        evidence=evidence,
        source=next((item for item in evidence if item.mark is not None), None),
        explanation=[] if quoted or not stored.explanation else pieces,
        candidate=stored.candidate if stored.outcome == "no_short_answer" else "",
        p_right=stored.p_right,
        reader_note=str(short["reader_note"]),
        dropped=stored.dropped_citations,
        ranking=stored.ranked_docids(),
    )


def _quoted_by(pieces: list[AnswerPiece]) -> tuple[bool, dict[int, tuple[int, int]]]:
    """Whether the explanation only quotes its citations' spans, and where the short answer stands in its span.

    An extractive answer is "quote [docid] quote [docid]": the text before each marker ends with that citation's
    quote. A model's written explanation is not, and is shown as written.
    """
    quoted, marks, pending = True, {}, []
    for piece in pieces:
        if piece.citation is None and not piece.marker:
            pending.append(piece)
            continue
        if piece.citation is not None and pending:
            text = "".join(p.text for p in pending).rstrip()
            quote = piece.citation.span.quote
            lead = len(quote) - len(quote.lstrip())
            quoted = quoted and text.endswith(quote.strip())
            at = len(text) - len(quote.strip()) - lead  # where the quote starts in the text before the marker
            offset = 0
            for p in pending:
                lo = offset - at
                if p.mark and lo >= 0 and quote[lo : lo + len(p.text)] == p.text:
                    marks[piece.citation.pk] = (lo, lo + len(p.text))
                offset += len(p.text)
        pending = []
    if any(p.text.strip() for p in pending):
        quoted = False
    return quoted, marks


def _item(number: int, citation: Citation, mark: tuple[int, int] | None) -> EvidenceItem:
    """Widen a cited span to the whole sentences it stands in: a quote is never shown cut mid-sentence."""
    from ..text import split_sentences

    span, text = citation.span, citation.span.document.text
    if not span.matches_source:
        return EvidenceItem(number, citation, "", span.quote, "", mark)
    lo, hi = max(0, span.start - CONTEXT_CHARS), min(len(text), span.end + CONTEXT_CHARS)
    sentences = split_sentences(text, lo, hi)
    start = next((s for s, e in sentences if s <= span.start < e), span.start)
    end = next((e for s, e in reversed(sentences) if s < span.end <= e), span.end)
    # The splitter keeps "discovery.¹ The" and a bulleted line as one sentence: those ends count here too.
    if ends := list(SENTENCE_END.finditer(text, start, span.start)):
        start = ends[-1].end()
    if QUOTE_ENDS.search(span.quote.rstrip()):
        end = span.end  # the quote ends its sentence
    elif first := SENTENCE_END.search(text, span.end, end):
        stop = first.group().rstrip()
        end = first.start() + (len(stop) if stop[:1] in ".!?" else 0)
    # A sentence that reaches the window's edge may go on past it: it is cut there, and says so.
    cut_before = lo > 0 and bool(sentences) and start == sentences[0][0] < span.start
    cut_after = hi < len(text) and bool(sentences) and end == sentences[-1][1] > span.end
    before = ("…" if cut_before else "") + readable(text[start : span.start]).lstrip()
    after = readable(text[span.end : end]).rstrip() + ("…" if cut_after else "")
    return EvidenceItem(number, citation, before, span.quote, after, mark)
