"""Whole-paper sentence reading: which sentences of a paper can be evidence, and how well each fits a question.

Pure functions over blocks (sentences with their section label and stored vector). A sentence is never
evidence when it belongs to the title/author block, the reference list, acknowledgements or funding, or a
running header/footer; every other sentence gets a score

    z(BM25 of the question's terms against the sentence)
  + z(MiniLM cosine of question and sentence)
  + TYPE_BONUS when the sentence holds what the question asks for (a count, a percentage, a name...)

z-scores are taken over the candidate sentences of the papers being read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..text import is_row, terms
from .features import weighted_bm25, zscore
from .types import Block

CONTEXT_WEIGHT = 0.0
TYPE_BONUS = 0.5

_BACK_MATTER = re.compile(
    r"\b(references?|bibliography|acknowledge?ments?|funding|author(?:s'|s)? contributions?|conflicts? of interest|"
    r"competing interests?|supplementary|abbreviations|ethics statement|data accessibility)\b",
    re.I,
)
_HEADER = re.compile(
    r"www\.|https?://|\bdoi\b|\|\s*\w+|\bvol\.|\bpp\.|proceedings of|copyright|©|\bc\s+20\d\d\b|journal of|"
    r"frontiers in|\bissn\b|open access|licen[cs]e",
    re.I,
)
# A link or a table's rule glyphs inside a sentence that is otherwise prose (a footnote "²REVERB uses OpenNLP for POS
# tagging: http://...", a sentence after a flattened table) make no header: the prose is evidence.
_LINK_OR_RULE = re.compile(r"(?:https?://|www\.)\S*|\|")
_PROSE_WORD = re.compile(r"\b[a-z]{3,}\b")
PROSE_WORDS = 4  # lowercase words beside the link or rules that make a sentence prose, not a header

_BIB = re.compile(
    r"^(?:[Ii]n\s+)?(?:[Pp]roc(?:eedings)?\.?\s|arXiv|CoRR|IEEE|ACM)|^In [A-Z]{2,}\b|^[A-Z]{2,}\s*\d{0,4}\.?$|"
    r"^\(?(?:19|20)\d\d[a-z]?\)?\.?$"
)
_SHORT_BIB = re.compile(r"et al\.?,?\s*\(?(?:19|20)\d\d|\b(?:19|20)\d\d[a-z]?\)?\.\s*$|^In\s+[A-Z]")
_NAME_LIST = re.compile(
    r"^(?:[A-Z][\w\-']+\.?\s+){1,3}[A-Z][\w\-']+(?:,\s*(?:and\s+)?(?:[A-Z][\w\-']+\.?\s*){1,4})+\.?$"
)
_CONTRIBUTIONS = re.compile(r"^(?:[A-Z]{2,3},\s*)+(?:and\s+)?[A-Z]{2,3}\b")


_SUMMARY = re.compile(
    r"^\W*(?:[\dIVX]+\.?\s*)?(?:abstract|summary|introduction|background|conclusions?|concluding remarks|"
    r"outlook|future work|resumen|introducci[oó]n|conclusi[oó]n(?:es)?)\b",
    re.I,
)


def summary_section(label: str | None) -> bool:
    """Return whether a section label names the abstract, introduction or conclusion (the paper's summary)."""
    return bool(_SUMMARY.match(label or ""))


# A section named as a summary that holds more of the paper's sentences than this is no summary: its later
# headings were not found, so the label runs on over the body ("Introduction" over 302 of a manual's 305 sentences,
# "Abstract" over 133 of a vignette's 140).
SUMMARY_SHARE = 0.2


def summary_flags(labels: Sequence[str | None]) -> list[bool]:
    """Per sentence of one paper (its section labels, in order), whether it is in the paper's summary: a section
    `summary_section` names that holds at most SUMMARY_SHARE of the paper's sentences."""
    sizes = Counter(labels)
    most = SUMMARY_SHARE * len(labels)
    return [summary_section(label) and sizes[label] <= most for label in labels]


def is_junk(block: Block, title: str = "", before_body: bool = False) -> bool:
    """Return whether a sentence can never be evidence: front matter, back matter, headers, bib entries."""
    text = " ".join(block.text.split())
    if before_body or _BACK_MATTER.search(block.label or ""):
        return True
    if (len(text) < 25 and not is_row(text)) or (title and text.lower().rstrip(".") == title.lower().rstrip(".")):
        return True
    if _HEADER.search(text) and len(text) < 200 and not _prose_beside_links(text):
        return True
    if len(text) < 70 and _SHORT_BIB.search(text):
        return True  # a fragment of a bib entry ("In AAAI.", "Smith et al., 2017.")
    return bool(_BIB.search(text) or _NAME_LIST.match(text) or _CONTRIBUTIONS.match(text))


def _prose_beside_links(text: str) -> bool:
    """Whether a sentence whose only header marks are links or table rules says something in words."""
    rest = _LINK_OR_RULE.sub(" ", text)
    return not _HEADER.search(rest) and len(_PROSE_WORD.findall(rest)) >= PROSE_WORDS


FRONT_MATTER_MOST = 20  # sentences: the longest title/author block seen (15 in the development papers)


def body_flags(blocks: Sequence[Block], title: str) -> list[bool]:
    """Return, per sentence, whether it is outside the body (junk) for one paper's sentences in text order.

    Sentences before the first labelled block (an abstract or first section) are the title/author block, when
    there are at most FRONT_MATTER_MOST of them: a paper whose headings the parser did not find until its
    "Conclusion" has its body before that label, and only the sentence filters judge it.
    """
    first = next((i for i, b in enumerate(blocks) if b.label), 0)
    first = first if first <= FRONT_MATTER_MOST else 0
    keys = [" ".join(block.text.split()).lower() for block in blocks]
    heads = [page_head(key) for key in keys]
    counts, numbered = Counter(keys), Counter(head for head in heads if head)
    return [
        is_junk(b, title, before_body=i < first)
        or counts[keys[i]] > 1  # a running header
        or numbered[heads[i] or ""] >= PAGE_HEADS  # a running header with its page number
        for i, b in enumerate(blocks)
    ]


PAGE_HEADS = 3  # pages a running header with a page number is found on
_PAGE_NUMBER = re.compile(r"^\d{1,4}\s+|\s+\d{1,4}$")
_WORD = re.compile(r"[^\W\d_]{3,}")


def page_head(text: str) -> str | None:
    """The words of a line that starts or ends with a page number ("SPH-USER Documentation Implementation of SPH in
    LAMMPS 12"), when at least three words remain (so "[1] 0.0104" or a table row of numbers is never one); else
    None."""
    head = _PAGE_NUMBER.sub("", text)
    return head if head != text and len(_WORD.findall(head)) >= 3 else None


@dataclass(frozen=True)
class SentenceScores:
    score: np.ndarray  # the combined score per candidate
    bm25: np.ndarray
    cosine: np.ndarray
    coverage: np.ndarray  # the idf share of the question's terms found in the sentence and its neighbours
    context: np.ndarray  # BM25 of the sentence with its neighbours (the window)


_SCOPE_NOUNS = (
    r"(?:paper|study|studies|review|article|report|work|note|technical note|experiments?|analysis|trial|survey|"
    r"investigation|thesis|manuscript|model|setting|setup)"
)
# "According to the paper on X, ...", "In the study of X, ...": a leading phrase naming the document.
_SCOPE_LEAD = re.compile(
    rf"^\s*(?:according to|in|from|for)\s+(?:the|this|that)\s+(?:[\w\-]+\s+){{0,4}}?{_SCOPE_NOUNS}\b[^,?]*,\s*",
    re.I,
)
# "... in the study of X?", "... in the X review?": a trailing phrase naming the document.
_SCOPE_TAIL = re.compile(
    rf"\s+(?:in|from|for|by|within|throughout)\s+(?:the|this|that)\s+(?:[^\s?,]+\s+){{0,8}}?{_SCOPE_NOUNS}\b"
    r"(?:\s+(?:on|about|of|that|where|which|with|for|against|in)\b[^?]*)?\s*\??\s*$",
    re.I,
)


def split_scope(question: str) -> tuple[str, str]:
    """Split a question into what it asks (its focus) and the phrase naming the document it is about (its scope).

    "From which muscle were the samples taken in the study of postmortem muscle degradation?" asks "From which
    muscle were the samples taken"; "the study of postmortem muscle degradation" picks the paper, and every
    sentence of that paper shares its words, so inside the paper they do not tell sentences apart.
    """
    q = " ".join(question.split())
    scope = []
    lead = _SCOPE_LEAD.match(q)
    if lead and len(q) - lead.end() > 15:
        scope.append(lead.group())
        q = q[lead.end() :]
    tail = _SCOPE_TAIL.search(q)
    if tail and tail.start() > 15:
        scope.append(tail.group())
        q = q[: tail.start()] + "?"
    return q.strip(), " ".join(s.strip(" ,?") for s in scope)


def question_terms(question: str, stop: Sequence[str] = (), scope_weight: float = 1.0) -> dict[str, float]:
    """Return the question's analysed terms without the given stop terms: its focus terms at weight 1, the terms
    only its scope phrase holds (split_scope) at scope_weight."""
    dropped = {t for w in stop for t in terms(w)}
    focus, scope = split_scope(question)
    weights = {t: scope_weight for t in terms(scope) if t not in dropped}
    weights.update({t: 1.0 for t in terms(focus) if t not in dropped})
    return weights


def score_sentences(
    weights: dict[str, float],
    question_vec: np.ndarray,
    texts: Sequence[str],
    vectors: np.ndarray,
    neighbours: Sequence[str],
    type_match: np.ndarray,
) -> SentenceScores:
    """Return the scores of candidate sentences (texts; neighbours: each with the sentences around it)."""
    tokens = [list(terms(t)) for t in texts]
    context = [list(terms(t)) for t in neighbours]
    sentence_bm25 = weighted_bm25(weights, tokens)
    context_bm25 = weighted_bm25(weights, context)
    cosine = np.asarray(vectors, dtype=float) @ np.asarray(question_vec, dtype=float)
    score = zscore(sentence_bm25) + CONTEXT_WEIGHT * zscore(context_bm25) + zscore(cosine) + TYPE_BONUS * type_match
    return SentenceScores(score, sentence_bm25, cosine, coverage(weights, context), context_bm25)


RANK_FEATURES = ("bm25", "cosine", "context", "type_match", "coverage", "summary", "position", "table_row", "caption",
                 "length")  # fmt: skip
_CAPTION = re.compile(r"^\s*(?:table|tab\.)\s*[\dIVX]+", re.I)
_NUMBER = re.compile(r"^[-+±]?[\d.,%]+[‡†*]?$")
CAPTION_REACH = 40  # sentences: a table row reads a caption this far away


def table_row_share(text: str) -> float:
    """The share of a sentence's tokens that are numbers (a results-table row is mostly numbers)."""
    tokens = text.split()
    return sum(bool(_NUMBER.match(t)) for t in tokens) / len(tokens) if tokens else 0.0


def nearest_captions(texts: Sequence[str]) -> list[str]:
    """Per sentence in text order, the nearest table caption at most CAPTION_REACH sentences away, above or below
    (venues put captions on either side of a table; "" for none)."""
    at = [i for i, text in enumerate(texts) if _CAPTION.match(text)]
    out = []
    for i in range(len(texts)):
        near = min(at, key=lambda j: (abs(j - i), j > i), default=None)
        out.append(texts[near] if near is not None and abs(near - i) <= CAPTION_REACH else "")
    return out


def rank_features(
    weights: dict[str, float],
    scores: SentenceScores,
    texts: Sequence[str],
    captions: Sequence[str],
    type_match: np.ndarray,
    positions: np.ndarray,
    summary: np.ndarray,
) -> np.ndarray:
    """The sentence ranker's inputs (RANK_FEATURES, one row per candidate): how well the sentence, its
    neighbours and, for a table row, its table's caption fit the question; where it stands; what it looks like."""
    rows = np.array([table_row_share(t) for t in texts])
    caption = weighted_bm25(weights, [list(terms(c)) for c in captions]) * (rows >= 0.3)
    return np.column_stack(
        [
            zscore(scores.bm25),
            zscore(scores.cosine),
            zscore(scores.context),
            type_match,
            scores.coverage,
            summary,
            positions,
            rows,
            zscore(caption),
            np.log1p([len(t) for t in texts]),
        ]
    )


def coverage(weights: dict[str, float], token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Return, per token list, the weighted, idf-weighted share of the query terms it contains (idf over the lists)."""
    n = len(token_lists)
    if not n or not weights:
        return np.zeros(n)
    sets = [set(t) for t in token_lists]
    idf = {t: float(np.log(1 + n / (1 + sum(t in s for s in sets)))) for t in weights}
    total = sum(idf[t] * weights[t] for t in weights) or 1.0
    return np.array([sum(idf[t] * weights[t] for t in weights if t in s) / total for s in sets])
