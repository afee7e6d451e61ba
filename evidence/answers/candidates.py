"""Typed answer candidates cut from one sentence, with their offsets in it.

A candidate is a number with its unit, a count, a percentage, a range, a year, a name or term, a noun phrase, a
list, or a purpose clause. Never a reference marker, a table, figure, section or equation number, a citation
bracket, a number the question already writes, a year unless the question asks for one, or a fragment that ends
mid-clause (on a preposition, an article, a conjunction or an auxiliary).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..text.question import Question

TYPES = (
    "percentage", "range", "quantity", "count", "number", "year", "name", "term", "phrase", "list", "purpose",
)  # fmt: skip
NUMERIC = {"percentage", "range", "quantity", "count", "number", "year"}
MAX_WORDS = {"name": 8, "term": 6, "phrase": 10, "list": 16, "purpose": 14}

_WORD_NUMBERS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    "dozen|half"
)
_DIGITS = r"[−\-–]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
# "37M papers", "1.4M PDFs", "100k steps", "7B parameters": a magnitude letter written onto the digits.
_MAGNITUDE = r"(?-i:[KMB]|k|bn)"
_NUMBER = re.compile(
    rf"(?<![\w.,/])(?:{_DIGITS}(?:\s?[×x]\s?10[−\-]?\d+|{_MAGNITUDE})?|(?:{_WORD_NUMBERS})(?:[\s\-](?:{_WORD_NUMBERS}))*)(?![\w])",
    re.I,
)
_RANGE_JOIN = re.compile(r"\s?(?:–|—|-|to|and)\s?")
_PERCENT = re.compile(r"\s?(?:%|percent\b|per cent\b)")
# A unit: a symbol or a short word, optionally with a compound tail ("µm/s", "cm2V−1s−1", "mg/mL", "kHz").
_UNIT = re.compile(r"\s?(?:°\s?[CF]\b|-fold\b|[a-zA-Zµμ°Ω]{1,6}(?:[/·]?[a-zA-Zµμ]{0,4}[−\-]?\d?){0,4})(?![\w])")
_UNIT_WORDS = {
    "s", "ms", "µs", "ns", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "h", "hr", "hrs",
    "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "yr", "yrs",
    "m", "cm", "mm", "µm", "μm", "um", "nm", "km", "in", "ft", "g", "mg", "µg", "μg", "ng", "kg", "l", "ml", "µl",
    "μl", "ul", "pm", "mol", "mmol", "hz", "khz", "mhz", "ghz", "v", "mv", "kv", "a",
    "ma", "µa", "μa", "w", "mw", "kw", "db", "°c", "°f", "k", "kb", "mb", "gb", "tb", "bp", "kbp", "kda", "da",
    "px", "pixels", "fps", "rpm", "psi", "pa", "kpa", "mpa", "gpa", "tpa", "bits", "bytes", "ppm", "ppb", "iu",
    "x", "times", "fold", "cycles", "epochs", "iterations", "steps",
}  # fmt: skip
_REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:section|sections|sec|secs|fig|figs|figure|figures|table|tables|tab|eq|eqs|equation|equations|chapter|"
    r"appendix|step|algorithm|alg|theorem|lemma|proposition|corollary|definition|ref|refs|reference|page|pages|"
    r"p|pp|line|lines|note|footnote|example|panel|supplementary|column|row|item|formula)\.?\s*|§\s*)$",
    re.I,
)
_LABEL = re.compile(
    r"\b(?:table|tables|tab|fig|figs|figure|figures|section|sec|eq|eqs|equation|appendix|chapter|algorithm|step|"
    r"lemma|theorem|proposition|corollary|definition)\.?\s*[\dIVX]",
    re.I,
)
_CITATION = re.compile(r"^al\.?$|\bet(?: al)?\.?$|\bet al\b|\b[A-Z][\w\-]+,?\s+(?:19|20)\d\d[a-z]?\b")
_LEADING = {"DET", "PRON", "CCONJ", "SCONJ", "ADP", "PUNCT", "PART", "AUX", "SPACE"}
_TRAILING = {"DET", "PRON", "CCONJ", "SCONJ", "ADP", "PUNCT", "AUX", "SPACE", "PART"}
_LIST_JOIN = re.compile(r"^\s*(?:,\s*(?:and|or)?|and|or|&|/)\s*$", re.I)
_PURPOSE = re.compile(
    r"\b(?:in order to|so as to|so that|aiming to|aims to|aimed to|to|because|since|due to)\s+(?!be\b)"
    r"([^\s,;:.()]+(?:\s+[^\s,;:.()]+){0,11})"
)


@dataclass(frozen=True)
class Candidate:
    """One candidate answer: its text as shown, its character range in the sentence, its type."""

    text: str
    start: int
    end: int
    type: str
    unit: str = ""  # a number's unit or counted noun ("µm/s", "gene families")
    entity: str = ""  # the pipeline's entity label over it, if any


def number_candidates(sentence: str, question: Question, doc: Any) -> list[Candidate]:
    """Return the numbers of a sentence, typed, with their units or counted nouns, minus the excluded ones."""
    out: list[Candidate] = []
    matches = list(_NUMBER.finditer(sentence))
    used_to = -1
    for index, match in enumerate(matches):
        start, end = match.span()
        if start < used_to or _excluded_number(sentence, match, question):
            continue
        number = match.group()
        typed = "year" if _is_year(number) else "number"
        # A range ("40–60%", "between 0% and 4%", "50 to 100 µm"): both ends, one unit.
        nxt = matches[index + 1] if index + 1 < len(matches) else None
        pre_percent = _PERCENT.match(sentence, end)
        join_at = pre_percent.end() if pre_percent else end
        if nxt is not None and _RANGE_JOIN.fullmatch(sentence[join_at : nxt.start()]) and typed != "year":
            closing = _PERCENT.match(sentence, nxt.end())
            tail = None if closing else _unit_after(sentence, nxt.end(), doc)
            range_end = closing.end() if closing else nxt.end() + len(tail[0]) if tail else nxt.end()
            kind = "percentage" if closing or pre_percent else "range"
            unit = "%" if kind == "percentage" else tail[0].strip() if tail else ""
            out.append(_cand(sentence, start, range_end, kind, unit, doc))
        percent = _PERCENT.match(sentence, end)
        if percent:
            out.append(_cand(sentence, start, percent.end(), "percentage", "%", doc))
            continue
        unit = _unit_after(sentence, end, doc)
        if unit:
            text, unit_type = unit
            out.append(_cand(sentence, start, end + len(text), unit_type, text.strip(), doc))
        out.append(_cand(sentence, start, end, typed, "", doc))
    return out


def _excluded_number(sentence: str, match: re.Match[str], question: Question) -> bool:
    """Whether a number is a reference, a label, a bracketed citation, or a number the question writes."""
    start, end = match.span()
    number = match.group().lower().replace(",", "")
    if number.lstrip("−-–") in {n.lstrip("−-–") for n in question.numbers}:
        return True
    if _REFERENCE_BEFORE.search(sentence[max(0, start - 14) : start]):
        return True
    if _is_year(number) and not question.wants_year:
        return True
    if _in_citation_bracket(sentence, start, end):
        return True
    # "(1)" or "(12)" closing a sentence or a formula: an equation or list label.
    before, after = sentence[:start].rstrip(), sentence[end:].lstrip()
    if before.endswith("(") and after.startswith(")") and re.fullmatch(r"\d{1,2}", number):
        rest = after[1:].strip()
        if not rest or rest[0] in ".;:" or before[:-1].rstrip()[-1:] in {"=", ")", "]"}:
            return True
    return False


def _in_citation_bracket(sentence: str, start: int, end: int) -> bool:
    """Whether the number sits inside square brackets holding only numbers (a citation list "[15, 43, 44]")."""
    lo, hi = sentence.rfind("[", 0, start), sentence.find("]", end)
    if lo < 0 or hi < 0 or sentence.rfind("]", 0, start) > lo:
        return False
    return bool(re.fullmatch(r"[\d\s,;–\-]+", sentence[lo + 1 : hi]))


def _is_year(number: str) -> bool:
    return bool(re.fullmatch(r"(?:1[6-9]|20)\d\d", number.strip()))


def _unit_after(sentence: str, end: int, doc: Any) -> tuple[str, str] | None:
    """Return (the text after a number that is its unit or counted noun, "quantity" or "count"), or None."""
    unit = _UNIT.match(sentence, end)
    if unit:
        word = unit.group().strip()
        if word.lower() in _UNIT_WORDS or re.search(r"[/µμ°Ω]|\d", word) or word in {"%"}:
            return unit.group(), "quantity"
    # A counted noun: the rest of the noun chunk the number opens ("18 gene families", "two research assistants").
    if doc is not None:
        for chunk in doc.noun_chunks:
            if chunk.start_char <= end - 1 < chunk.end_char and chunk.end_char > end:
                tail = sentence[end : chunk.end_char]
                if re.fullmatch(r"\s+(?!(?:and|or|to|of)\b)[A-Za-z][A-Za-z\-\s]*", tail):
                    return tail, "count"
    return None


def _cand(sentence: str, start: int, end: int, typed: str, unit: str, doc: Any) -> Candidate:
    return Candidate(" ".join(sentence[start:end].split()), start, end, typed, unit, _entity(doc, start, end))


def _entity(doc: Any, start: int, end: int) -> str:
    if doc is None:
        return ""
    for ent in doc.ents:
        if ent.start_char < end and start < ent.end_char:
            return str(ent.label_)
    return ""


def phrase_candidates(sentence: str, question: Question, doc: Any) -> list[Candidate]:
    """Return noun chunks, entities, terms and lists of the sentence (trimmed to whole words, never a fragment)."""
    spans: dict[tuple[int, int], str] = {}

    def add(tokens: list[Any], typed: str) -> None:
        while tokens and tokens[0].pos_ in _LEADING:
            tokens = tokens[1:]
        while tokens and (tokens[-1].pos_ in _TRAILING or tokens[-1].text in {"(", "[", "-"}):
            tokens = tokens[:-1]
        if not tokens:
            return
        start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
        while end > start and sentence[end - 1] in ".,;:":
            end -= 1
        glued = re.search(r"(?<=[a-z]{3})\d{1,2}$", sentence[start:end])
        marker = bool(glued) and not re.search(r"[A-Z]", sentence[start:end].split()[-1])
        if marker and glued:
            end -= len(glued.group())  # a footnote marker glued to the word ("library3")
        text = sentence[start:end]
        if tokens[0].like_num and tokens[0].text.lower().replace(",", "") in question.numbers:
            return  # "7,918 gene families" when the question gives the 7,918
        if text.count("(") != text.count(")") or text.count("[") != text.count("]") or text.count('"') % 2:
            return
        if _inside_word(sentence, start, end + len(glued.group()) if marker and glued else end):
            return  # a piece of a hyphenated or glued word ("Wallis test" of "Kruskal-Wallis test")
        if _LABEL.search(text) or re.fullmatch(r"\[[\d\s,;–\-]*\]", text) or _CITATION.search(text):
            return  # "Table 3", "Figure 2", "Eq. 7", "[12]", "Darriba et al", "(Piskorski, 2002)": pointers
        if len(text.split()) > MAX_WORDS[typed] or not re.search(r"\w", text):
            return
        if all(_is_year(t.text) or t.like_num for t in tokens):
            return  # numbers are number candidates
        spans.setdefault((start, end), typed)

    chunks = list(doc.noun_chunks)
    for chunk in chunks:
        tokens = list(chunk)
        add(tokens, "phrase")
        # The chunk without its head noun when the head is the question's asked thing ("Bruker AMX-400 instrument").
        if len(tokens) > 1:
            add(tokens[:-1], "phrase")
        # The name inside: proper nouns and mixed-case or digit-bearing tokens ("UMC L180", "fura2-AM").
        named = [t for t in tokens if _named(t)]
        if named:
            add(_contiguous(doc, named), "name")
    for ent in doc.ents:
        if ent.label_ not in {"CARDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME", "ORDINAL"}:
            add(list(ent), "name")
    run: list[Any] = []
    for token in [*doc, None]:
        if token is not None and _named(token) and not (token.i == 0 and token.is_title and token.pos_ != "PROPN"):
            run.append(token)
            continue
        if run:
            add(run, "term")
        run = []
    # Lists: two or more chunks joined by commas and a conjunction ("PubMed, EMBASE, and Medline").
    i = 0
    while i < len(chunks):
        j = i
        while j + 1 < len(chunks) and _LIST_JOIN.match(sentence[chunks[j].end_char : chunks[j + 1].start_char]):
            j += 1
        if j > i:
            add(list(doc[chunks[i].start : chunks[j].end]), "list")
        i = j + 1
    # Purpose clauses ("to identify themes", "because it creates ...").
    for match in _PURPOSE.finditer(sentence):
        lo = match.start()
        span = doc.char_span(lo, match.end(), alignment_mode="contract")
        if span is not None and len(span) > 1:
            tokens = list(span)
            while tokens and tokens[-1].pos_ in _TRAILING:
                tokens = tokens[:-1]
            if len(tokens) > 1:
                start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
                spans.setdefault((start, end), "purpose")
    return [_cand(sentence, s, e, typed, "", doc) for (s, e), typed in spans.items()]


def _inside_word(sentence: str, start: int, end: int) -> bool:
    """Whether a range starts or ends inside a word: glued to a hyphen, a letter or a digit on either side."""
    before = sentence[start - 1 : start] if start else ""
    after = sentence[end : end + 1]
    return bool(re.match(r"[\w\-–/]", before) or re.match(r"[\w\-–/]", after))


def _named(token: Any) -> bool:
    """Whether a token reads as part of a name: a proper noun, or mixed case or digits inside a word."""
    text = token.text
    if not re.search(r"\w", text) or token.like_num:
        return False
    return token.pos_ == "PROPN" or bool(re.search(r"[A-Z].*[A-Z]|\d.*[A-Za-z]|[A-Za-z].*\d|^[a-z]+[A-Z]", text))


def _contiguous(doc: Any, tokens: list[Any]) -> list[Any]:
    """Return the tokens from the first to the last of `tokens` (the name with whatever joins its parts)."""
    return list(doc[tokens[0].i : tokens[-1].i + 1])


def candidates(sentence: str, question: Question, doc: Any) -> list[Candidate]:
    """Return every typed candidate of a sentence for the question (its parse `doc`), by position."""
    found = {(c.start, c.end, c.type): c for c in number_candidates(sentence, question, doc)}
    taken = {(c.start, c.end) for c in found.values()}
    for c in phrase_candidates(sentence, question, doc):
        if (c.start, c.end) not in taken and not _year_only(c, question):
            found[(c.start, c.end, c.type)] = c
    return sorted(found.values(), key=lambda c: (c.start, c.end))


def _year_only(candidate: Candidate, question: Question) -> bool:
    return not question.wants_year and _is_year(candidate.text)


_NAME_WORD = re.compile(r"(?<=\s)(?:[A-Z][\w\-]*[A-Z0-9][\w\-]*|[A-Z][a-z]+[A-Z]\w*|[a-z]+\d[\w\-]*|[A-Z]{2,}\w*)")


def holds_kind(sentence: str, question: Question) -> tuple[bool, bool]:
    """Return whether a sentence holds a candidate of the asked kind, and a number in the asked measure's unit.

    Without a parse (every sentence of a paper is checked): the reader's scorer uses it to prefer sentences
    that can answer at all.
    """
    kind = question.kind
    if kind in {"percentage", "count", "quantity", "year"}:
        found = number_candidates(sentence, question, None)
        wanted = {
            "percentage": {"percentage"},
            "count": {"count", "number"},
            "quantity": {"quantity", "range", "number", "percentage"},
            "year": {"year"},
        }[kind]
        from ..text.question import unit_fits

        fits = any(c.unit and unit_fits(question.text, c.unit) for c in found)
        return any(c.type in wanted for c in found), fits
    if kind == "name":
        named = bool(_NAME_WORD.search(" " + sentence))
        asked = bool(question.asked_terms) and any(
            t in question.asked_terms for t in _terms(sentence)
        )
        return named or asked, False
    if kind == "purpose":
        return bool(_PURPOSE.search(sentence)), False
    return False, False


def _terms(text: str) -> tuple[str, ...]:
    from ..text.terms import terms

    return terms(text)
