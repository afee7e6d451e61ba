"""Exact answers by question type, cut only from a cited sentence.

The question's kind (count, quantity, percentage, year, yes/no, name, purpose, phrase) decides what is cut:
a number the question asks for (never a year, a section, figure or table number, a citation marker or a
number the question itself contains, unless a year is asked), a yes/no with negation, or the shortest run
of the sentence's words that the question does not already say, nearest the question's terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..judge.features import terms

KINDS = ("yes_no", "percentage", "count", "quantity", "year", "name", "purpose", "phrase")

_PERCENT_Q = re.compile(r"\bpercent(?:age)?s?\b|\bwhat (?:fraction|proportion|share)\b|%", re.I)
_QUANTITY_Q = re.compile(
    r"\bhow (?:much|long|large|big|high|fast|far|old|heavy)\b|\bhow many times\b|"
    r"\b(?:concentration|size|surface area|dose|dosage|temperature|amount|rate|length|width|weight|volume|"
    r"duration|speed|dimension|area|mass|budget|cost|price|value)\b",
    re.I,
)
_COUNT_Q = re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b", re.I)
_YEAR_Q = re.compile(r"\bwhat year\b|\bwhich year\b|^\s*when\b|\bin what year\b", re.I)
_PURPOSE_Q = re.compile(r"\bused for\b|\bfor what\b|\bwhat (?:\w+ )?for\??$|\bpurpose\b|\bwhy\b|\brole of\b", re.I)
_NAME_Q = re.compile(
    r"^\s*(?:which|who|whom|whose|name)\b|\bwhat (?:kinds?|types?|sorts?) of\b|"
    r"\bwhat (?:is|was|are|were) the name\b|\bwhich\b",
    re.I,
)
_BOOLEAN = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|may|might)\b", re.I)

_WORD_NUMBERS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    "seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred"
)
_NUMBER = re.compile(
    rf"(?<![\w.,])(?:\d{{1,3}}(?:,\d{{3}})+(?![\d,])|\d+,\d{{1,2}}(?![\d,])|\d+(?:\.\d+)?)(?:\s*[×x]\s*\d+(?:\.\d+)?)?(?:\s?[KkMB]\b)?"
    rf"|\b(?:{_WORD_NUMBERS})(?:[\s\-](?:{_WORD_NUMBERS}))*\b",
    re.I,
)
_UNIT = re.compile(r"\s?(?:%|-fold\w*|°\s?C\b|[a-zA-Zµμ°²³]{1,5}(?:[/²³\d][\w/²³]*)?(?![\w\-]))")
_REFERENCE_BEFORE = re.compile(
    r"(?:section|sec\.|fig\.?|figure|table|eq\.?|equation|chapter|appendix|step|\[|ref\.?|page|p\.)\s*$", re.I
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|neither|nor|cannot|can't|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|"
    r"fail(?:s|ed)?\s+to|without|unable|negative|none|rather than|instead of|independent(?:ly)? of|"
    r"unaffected|unchanged|absent|lack(?:s|ed|ing)?)\b",
    re.I,
)
_TOKEN = re.compile(r"[^\s,;:()\[\]“”\"]+")
_STOP = {
    "the", "a", "an", "was", "were", "is", "are", "be", "been", "being", "by", "using", "use", "used", "to", "in",
    "on", "at", "with", "from", "as", "that", "this", "these", "those", "which", "who", "we", "our", "it", "its",
    "their", "they", "has", "have", "had", "into", "than", "then", "also", "such", "can", "may", "via", "per",
    "between", "since", "after", "before", "during", "while", "where", "when", "there", "here", "both", "each",
    "all", "any", "some", "more", "most", "other", "further", "i.e.", "e.g.", "et", "al.", "al", "or", "but",
}  # fmt: skip
_CONNECTORS = {"and", "of", "for", "de", "del", "el", "la", "para", "y", "&", "#"}


def question_kind(question: str) -> str:
    """Return what the question asks for: one of KINDS."""
    q = " ".join(question.split())
    # "In the model with X, is FDI welfare improving ...?": the question proper follows a leading phrase.
    lead = re.match(r"^\s*(?:in|for|on|under|at|with|according to|among|during)\b[^,?]{0,120},\s*(.+)$", q, re.I)
    if lead and _BOOLEAN.match(lead.group(1)):
        q = lead.group(1)
    if _BOOLEAN.match(q) and not re.match(r"^\s*(?:is|are|was|were) (?:the )?(?:name|number)\b", q, re.I):
        return "yes_no"
    if _PERCENT_Q.search(q):
        return "percentage"
    if _YEAR_Q.search(q) and not _COUNT_Q.search(q):
        return "year"
    if re.search(r"\bhow many times\b", q, re.I) or (_QUANTITY_Q.search(q) and not _COUNT_Q.search(q)):
        return "quantity"
    if _COUNT_Q.search(q):
        return "count"
    if _PURPOSE_Q.search(q):
        return "purpose"
    if _NAME_Q.search(q) or asked_noun(q):
        return "name"
    return "phrase"


@dataclass(frozen=True)
class Candidate:
    text: str
    score: float
    fits: bool = False  # a number whose unit is one the question's measure is written in


# The units each measure is written in: "at what concentration" is answered by "0.1 mg/mL", not "96 wells".
_MEASURE_UNITS = (
    (
        r"concentration|dose|dosage",
        r"(?:[nµμmk]?g|[nµμm]?mol|[nµμm]?M|ppm|ppb|%|IU|U)(?:\s?/\s?(?:[nµμm]?[lL]|kg|g|ml|mL|L))?$",
    ),
    (r"temperature", r"°\s?[CF]|K$|°$"),
    (
        r"duration|how long|time|age|how old",
        r"(?:s|sec|seconds?|min|minutes?|h|hours?|hrs?|days?|weeks?|months?|years?|yr)$",
    ),
    (
        r"length|width|height|depth|distance|how far|thickness|diameter|size|radius",
        r"(?:[nµμmck]?m|in|ft|µm|μm|px|pixels?)$",
    ),
    (r"surface area|area", r"(?:[nµμmck]?m2|[nµμmck]?m²|m\s?2\s?/\s?g|m²/g|ha|km2)$|/g$"),
    (r"weight|mass|how heavy", r"(?:[nµμmk]?g|kDa|Da|t|tons?)$"),
    (r"speed|velocity|how fast", r"(?:[mk]m/h|m/s|km/s|mph|rpm)$"),
    (r"volume", r"(?:[nµμm]?[lL]|ml|mL|cm3|m3)$"),
    (r"frequency|sampling rate|rate", r"(?:[kMG]?Hz|/s|per second)$"),
)


def unit_fits(question: str, unit: str) -> bool:
    """Return whether a number's unit is one the measure the question asks for is written in."""
    unit = unit.strip()
    if not unit or re.search(r"\bhow many times\b|\bfold\b", question, re.I):
        return False  # "how many times higher": a ratio, whatever measure the question names
    return any(
        re.search(rf"(?<![\w\-])(?:{measure})(?![\w\-])", question, re.I) and re.search(units, unit)
        for measure, units in _MEASURE_UNITS
    )


def negated(text: str) -> bool:
    """Return whether the text states a negative finding."""
    return bool(_NEGATION.search(text))


def _is_year(number: str) -> bool:
    return bool(re.fullmatch(r"(?:1[89]|20)\d\d", number.strip()))


def _proximity(sentence: str, start: int, end: int, question_terms: set[str], window: int = 60) -> float:
    """Return how many question terms sit near a character range, nearer ones weighing more."""
    score = 0.0
    for match in _TOKEN.finditer(sentence):
        if match.end() <= start - window or match.start() >= end + window or start <= match.start() < end:
            continue
        if any(t in question_terms for t in terms(match.group())):
            distance = start - match.end() if match.end() <= start else match.start() - end
            score += 1.0 / (1.0 + max(distance, 0) / 15.0)
    return score


def _clause_overlap(sentence: str, at: int, question_terms: set[str]) -> float:
    """Return how many distinct question terms the clause around a position holds (clauses end at , ; :)."""
    lo = max(sentence.rfind(mark, 0, at) for mark in ",;:(") + 1
    if lo and sentence[lo - 1] == "(" and not sentence[lo:at].strip():
        # "(0.1 mg/mL)": a parenthesised value belongs to the clause it follows
        lo = max(sentence.rfind(mark, 0, lo - 1) for mark in ",;:(") + 1
    ends = [i for i in (sentence.find(mark, at) for mark in ",;:)") if i >= 0]
    clause = sentence[lo : min(ends) if ends else len(sentence)]
    return float(len(set(terms(clause)) & question_terms))


def number_candidates(question: str, sentence: str, kind: str) -> list[Candidate]:
    """Return the numbers of the sentence the question may ask for, best first (with a unit when it has one)."""
    question_terms = set(terms(question))
    asked = {m.group().lower() for m in _NUMBER.finditer(question)}
    out: list[Candidate] = []
    for match in _NUMBER.finditer(sentence):
        number = match.group()
        before = sentence[: match.start()]
        if number.lower() in asked or _REFERENCE_BEFORE.search(before[-12:]):
            continue
        if _is_year(number) and kind != "year":
            continue
        if kind == "year" and not _is_year(number):
            continue
        if re.match(r"\d+\s*[,\]]", sentence[match.start() :]) and "[" in before[-8:]:
            continue  # a citation list [38, 40]
        unit = _UNIT.match(sentence, match.end())
        unit_text = unit.group() if unit and unit.group().strip().lower() not in _STOP | _CONNECTORS else ""
        if kind == "count" and not unit_text.strip().startswith("-"):
            unit_text = ""
        text = (number + unit_text).strip()
        score = _clause_overlap(sentence, match.start(), question_terms) + 0.5 * _proximity(
            sentence, match.start(), match.end() + len(unit_text), question_terms
        )
        if kind == "percentage":
            if "%" not in unit_text and "percent" not in sentence[match.end() : match.end() + 9].lower():
                continue
            score += 2.0
        fits = False
        if kind == "quantity":
            score += 1.0 if unit_text.strip() else 0.0
            if set(terms(unit_text)) & question_terms:
                score += 2.0  # "a 4 × 21 maze" for the size of the maze
            elif unit_fits(question, unit_text):
                fits = True
                score += 2.0
        elif kind == "count" and unit_text.strip().startswith("-"):
            score -= 1.0  # "60-minute" is a measure, not a count
        out.append(Candidate(text, score, fits))
    return sorted(out, key=lambda c: -c.score)


_ASKED = re.compile(
    r"\b(?:which|what|whose)\s+(?:(?:kinds?|types?|sorts?|name)\s+of\s+(?:the\s+)?)?((?:[\w\-]+\s+){0,3}?[\w\-]+?)"
    r"(?:\s+(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should|of|in|for|from|on|at|by|to|"
    r"used|named|assumed|employed|applied|required)\b|\s*,)",
    re.I,
)
_NOT_NOUNS = {"is", "are", "was", "were", "does", "do", "did", "the", "a", "an", "it", "they", "this"}


def asked_noun(question: str) -> str:
    """Return the head noun of the thing a which/what question asks for ("which union model is ..." -> "model")."""
    q = " ".join(question.split())
    named = re.search(
        r"\bname of (?:the |a |an )?((?:[\w\-]+\s+){0,3}?[\w\-]+?)\s+(?:that|which|who|grouping|used|"
        r"mentioned|of|in|for|is|was|\?)",
        q + " ?",
        re.I,
    )
    match = named or _ASKED.search(q)
    if not match:
        return ""
    head = match.group(1).split()[-1]
    return "" if head.lower() in _NOT_NOUNS or head.lower() == "name" else head


def head_candidates(question: str, sentence: str) -> list[Candidate]:
    """Return names attached to the question's asked noun in the sentence ("Hummer's method", "state 49").

    The words just before the noun that the question does not say (its modifiers: "a right-to-manage model"),
    else the name just after it ("transcription factors Seven-up (Svp)", "state 49").
    """
    head = asked_noun(question)
    head_terms = set(terms(head))
    if not head_terms:
        return []
    question_terms = set(terms(question))
    tokens = list(_TOKEN.finditer(sentence))
    out: list[Candidate] = []
    for h, tok in enumerate(tokens):
        parts = re.split(r"-", tok.group())
        if not (set(terms(tok.group())) & head_terms or set(terms(parts[-1])) & head_terms):
            continue
        # The name right after the noun, when it has one: capitalised words, acronyms, numbers ("state 49").
        j = h + 1
        while j < len(tokens) and j - h <= 4:
            word = tokens[j].group().strip("()")
            gap = sentence[tokens[j - 1].end() : tokens[j].start()]
            if j > h + 1 and re.search(r"[;:]|,", gap):
                break
            if not (re.search(r"[A-Z]|\d", word) or (j > h + 1 and word.lower() in {"and"})):
                break
            j += 1
        while j > h + 1 and tokens[j - 1].group().lower() in _CONNECTORS:
            j -= 1
        if j > h + 1:
            text = sentence[tok.start() : tokens[j - 1].end()].strip(" .,;:")
            near = _proximity(sentence, tok.start(), tokens[j - 1].end(), question_terms)
            out.append(Candidate(text, 3.5 + 0.5 * (j - h - 1) + 0.5 * near))
            continue
        # Modifiers before the noun, up to a stopword, punctuation or five words.
        i = h
        while i > 0 and h - i < 5:
            prev = tokens[i - 1].group().strip("“”\"'")
            gap = sentence[tokens[i - 1].end() : tokens[i].start()]
            if re.search(r"[,;:()\[\]]", gap) or (prev.lower() in _STOP and prev.lower() not in {"and"}):
                break
            i -= 1
        while i < h and tokens[i].group().lower() in _CONNECTORS:
            i += 1
        before = [t.group() for t in tokens[i:h]]
        # "Larsen-traps": a modifier inside the token
        inner_new = len(parts) > 1 and not set(terms("-".join(parts[:-1]))) <= question_terms
        new_before = [w for w in before if _free(w, question_terms) and w.lower() not in _CONNECTORS]
        if new_before or inner_new:
            text = sentence[tokens[i].start() : tok.end()].strip(" .,;:")
            text = re.sub(r"[“”\"]", "", text)
            named = sum(bool(re.search(r"[A-Z]|\d|-|’|'", w)) for w in new_before) + inner_new
            near = _proximity(sentence, tokens[i].start(), tok.end(), question_terms)
            out.append(Candidate(re.sub(r"(?<=[A-Za-z])\d+$", "", text), 3.0 + named + 0.5 * near))
    return sorted(out, key=lambda c: -c.score)


_PURPOSE_CLAUSE = re.compile(
    r"\b(?:in order to|so as to|so that|aiming to|to)\s+(?!be\b)([a-z][\w\-]*(?:\s+[^\s,;:.()]+){0,6})"
)


def purpose_candidates(question: str, sentence: str) -> list[Candidate]:
    """Return what a thing is used for: a "to ..." clause, or what the sentence says is done with it.

    "X was quantified using the assay" / "the quantification of X was performed with the assay" / "ions were
    chelated by DTPA": the clause before the instrument marker, when the question's subject follows it.
    """
    question_terms = set(terms(question))
    out: list[Candidate] = []
    for match in _PURPOSE_CLAUSE.finditer(sentence):
        words = match.group(1)
        if set(terms(words)) - question_terms:
            out.append(
                Candidate(
                    "to " + words.strip(" .,;:"),
                    2.0 + 0.5 * len(set(terms(sentence[: match.start()])) & question_terms),
                )
            )
    for match in re.finditer(
        r"\b(?:was|were|is|are)\s+(?:\w+ed|performed|done|made)\s+(?:by|using|with|through|via)\b", sentence
    ):
        after = set(terms(sentence[match.end() : match.end() + 80]))
        if not after & question_terms:
            continue
        lo = max([sentence.rfind(m, 0, match.start()) for m in ",;:("] + [-1]) + 1
        clause = sentence[lo : match.end()].split()
        clause = clause[:-1]  # drop the instrument marker
        while clause and clause[0].lower().strip("0123456789,") in _STOP | {""}:
            clause = clause[1:]
        if clause and set(terms(" ".join(clause))) - question_terms:
            out.append(Candidate(" ".join(clause), 4.0))
    return sorted(out, key=lambda c: -c.score)


def phrase_candidates(question: str, sentence: str, kind: str) -> list[Candidate]:
    """Return runs of the sentence's words the question does not say, scored as answers to it."""
    question_terms = set(terms(question))
    tokens = list(_TOKEN.finditer(sentence))
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and _free(tokens[j].group(), question_terms):
            j += 1
            if j < len(tokens) and re.search(r"[,;:()\[\]]", sentence[tokens[j - 1].end() : tokens[j].start()]):
                break  # a run never crosses punctuation
        while j > i and tokens[j - 1].group().lower() in _CONNECTORS:
            j -= 1
        if j > i and tokens[i].group().lower() not in _CONNECTORS:
            runs.append((i, j))
        i = max(j, i + 1)
    out = []
    limit = 10 if kind in {"purpose", "phrase"} else 6
    for i, j in runs:
        # Keep the question's head noun that follows the name ("Apache's PDFBox library", "Soil DNA kit").
        k = j
        while k < len(tokens) and k < j + 2 and not _free(tokens[k].group(), question_terms):
            if tokens[k].group().lower() in _STOP:
                break
            k += 1
        words = [t.group() for t in tokens[i:j]]
        if len(words) > limit:
            continue
        start, end = tokens[i].start(), tokens[max(k, j) - 1].end()
        text = sentence[start:end].strip(" .,;:")
        named = sum(bool(re.search(r"[A-Z]|\d|-", w[1:] if w[:1].isupper() and i == 0 else w)) for w in words)
        score = named + 2.0 * _proximity(sentence, start, end, question_terms) - 0.3 * max(0, len(words) - 4)
        if "(" in sentence[max(0, start - 1) : start] or re.search(r"\bet al\b", text):
            score -= 2.0
        if all(_is_year(w.strip(".,")) for w in words):
            score -= 3.0
        if text:
            out.append(Candidate(text, score))
    return sorted(out, key=lambda c: -c.score)


def _free(token: str, question_terms: set[str]) -> bool:
    """Return whether a token is neither a stopword nor one of the question's terms."""
    low = token.lower().strip(".")
    if low in _STOP:
        return False
    analysed = terms(token)
    return low in _CONNECTORS or not analysed or not any(t in question_terms for t in analysed)


def candidates(question: str, sentence: str, kind: str | None = None) -> list[Candidate]:
    """Return exact-answer candidates of the asked kind in one sentence, best first ([] when it has none)."""
    kind = kind or question_kind(question)
    flat = " ".join(sentence.split())
    if kind == "yes_no":
        return [Candidate("No" if negated(flat) else "Yes", 1.0)]
    if kind in {"percentage", "count", "quantity", "year"}:
        return number_candidates(question, flat, kind)
    found: list[Candidate] = []
    if kind == "purpose":
        found = purpose_candidates(question, flat)
    elif kind == "name":
        found = head_candidates(question, flat)
    return found + [c for c in phrase_candidates(question, flat, kind) if not found or c.score > found[0].score]
