"""The clause that states a reason or a purpose ("because several packages use rtree() ...", "to avoid integration
for unchanged parameters"): what a "why" or "what for" question asks, as its sentence words it. Pure functions.

A small model often replies "not stated" to a "why" question whose answer its best sentence gives, or names a thing
instead of the reason; the clause is then cut from the sentence by its marker (because, since, in order to, so that,
as it..., the reason ... is that, a purpose verb after "to"), with exact offsets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.terms import terms

# Verbs that, after "to", say what something is for ("... during maximization to avoid integration ...").
PURPOSE_VERBS = (
    "accommodate|account|achieve|allow|avoid|capture|check|compute|detect|enable|ensure|establish|estimate|"
    "facilitate|guarantee|handle|help|identify|improve|increase|keep|limit|maintain|make|measure|minimi[sz]e|"
    "maximi[sz]e|obtain|prevent|protect|provide|quantify|reduce|remove|save|simplify|speed|support|test|verify"
)
_MARKERS = (
    r"in order to|so as to|so that|because(?: of)?|since(?! \d| then\b| the (?:early|late|\d))|due to|"
    r"as(?= (?:it|they|this|these|there|we|the researchers)\b)|"
    r"(?:argument|reason|idea|motivation|rationale|purpose|goal|aim)\b[^,;.]{0,80}?\b(?:is|was) (?:that|to)|"
    r"for (?:[\w\-]+ ){0,3}reasons?|"
    # "to avoid integration ...", "to dramatically increase speed": "to", an adverb maybe, a purpose verb.
    rf"to(?= (?:\w+ly )?(?:{PURPOSE_VERBS})\b)|"
    # After a comma, a participle says what the action brings ("..., guaranteeing that identical sets ...").
    r"(?<=, )(?:thereby |thus )?(?:guaranteeing|ensuring|allowing|enabling|avoiding|preventing)|"
    # ", as Haley-Knott regression performs poorly ...": "as" opening a clause whose verb follows within 4 words.
    r"(?<=, )as(?= (?:[\w\-]+ ){1,4}(?:is|are|was|were|has|have|had|does|do|did|can|cannot|could|would|will|may|"
    r"might|must|performs|works|fails|requires|needs|depends|yields|gives|lacks|tends)\b)|"
    # "... is necessary for correct standard error calculation": what a thing is needed for.
    r"(?:(?<=necessary )|(?<=needed )|(?<=required )|(?<=essential )|(?<=crucial )|(?<=important ))for(?= \w)"
)
_MARKER = re.compile(rf"\b(?:{_MARKERS})\b", re.I)
# "What does maxstat need exactRankTests for?": "for the computation of ..." says what a thing is used for; a
# marker only for a question that asks what something is (used) for.
_USE = r"for (?:the |a |an )?[\w\-]+(?:ion|ing|ment|sis|ance|ence)s?"
_MARKER_OR_USE = re.compile(rf"\b(?:{_MARKERS}|{_USE})\b", re.I)
_ASKS_USE = re.compile(r"\bfor\s*\?\s*$|\bfor\s+in\b|\bused for\b", re.I)
# "What is gforker primarily intended for?": the sentence's "intended as a debugging aid" answers it, before any
# reason the sentence goes on to give ("as it simplifies development ...").
_ASKS_INTENT = re.compile(r"^\s*(?:what|for what)\b[^?]*\b(?:intended|designed|meant|supposed)\b", re.I)  # not "why"
_INTENT = re.compile(
    r"\b(?:intended|designed|meant)(?:\s+(?:primarily|mainly|mostly|chiefly|largely|specifically|solely|only))?\s+"
    r"((?:as|for|to)\s)",
    re.I,
)
_CLAUSE_END = re.compile(
    r";|:\s|,\s+(?:which|while|whereas|but|however|although|though|since|because|as|i\.e\.|e\.g\.)\b|\.\s*$|"
    r"\s+\((?:[^()]*\s)?(?:1[89]|20)\d\d[a-z]?\)|$",  # a citation ("(Hothorn, 2001)") ends its clause too
    re.I,
)
_DROPPED = re.compile(
    r"^(?:as\s+|(?:argument|reason|idea|motivation|rationale|purpose|goal|aim)\b.*?\b(?:is|was) (?:that\s+|(?=to\b)))",
    re.I,
)
# The second "as" of a comparison ("as many equations as there are variables") gives no reason.
_COMPARISON = re.compile(r"\bas (?:many|much|few|little|well|long|far|\w+er)\b[^,;.]{0,60}$", re.I)
_ASIDE = re.compile(r"\s+\([^()]*\)$")  # a closing parenthetical: an aside, not the reason
# A purpose the sentence denies ("the goal is not to make any comments ..., but rather ... due to ...") is none.
_DENIED = re.compile(r"\b(?:not|never)\s+$", re.I)
# A clause that only points back ("To achieve this", "because of that") states no reason of its own.
_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|it|them)$", re.I)
# "for two reasons" announces reasons given next, not "for obvious identification reasons".
_POINTS_AHEAD = re.compile(
    r"for (?:two|three|four|several|some|a few|many|various|(?:the )?following|these|those|both)(?: [\w\-]+)? reasons?",
    re.I,
)
POINTING_WORDS = 3
MAX_WORDS = 25
MIN_SHARED = 2  # question terms the clause's sentence shares with the question


@dataclass(frozen=True)
class Clause:
    """The clause's range [start, end) inside evidence sentence `sentence`."""

    sentence: int
    start: int
    end: int


# "It triggers numerical instabilities, which is why ...": the reason is the clause before the marker.
_WHICH_IS_WHY = re.compile(r",?\s+(?:which|that|this) is (?:why|the reason)\b", re.I)
# A sentence's opening "As ..., " states a reason ("As the discretized equation is a Newton's equation of motion,
# peridynamics can be implemented ..."), unless it points at the text ("As shown in Table 2") or compares.
_AS_OPENING = re.compile(
    r"\bAs (?!(?:shown|seen|described|mentioned|noted|discussed|expected|illustrated|explained|reported|stated|"
    r"defined|indicated|demonstrated|suggested|proposed|pointed|in|a|an|such|well|for|of|with|to|usual|before|"
    r"above|below|follows|opposed|far|long|soon|much|many|part|regards?)\b)"
)
_LEAD = re.compile(r"^(?:[^\s,;]+\s+){0,3}[^\s,;]+,\s+")  # "Formally, ", "In this paper, ": a sentence's leading phrase
# "Note that in order to avoid ranking bias, we break ties ...": a clause after such a short lead opens its sentence.
_SHORT_LEAD = re.compile(r"^(?:[\w\-]+\s+){0,2}(?:that|[\w\-]+,)$", re.I)


def reason_clause(text: str, uses: bool = False, intent: bool = False) -> tuple[int, int] | None:
    """The first reason or purpose clause of a sentence as [start, end), or None. A clause that opens the sentence
    ("In order to allow ..., networks are marked ...", "As X is Y, ...") ends at its first comma; one inside it at
    the sentence's end, a semicolon, a citation or a comma before a new clause ("which", "while", "but"); one before
    "which is why" starts after the sentence's leading phrase ("Unsurprisingly, "). `uses`: "for the computation of
    ..." counts too (to a question asking what a thing is used for). `intent` (to a question asking what a thing is
    intended, designed or meant for): "intended as a debugging aid" gives "as a debugging aid", up to the reason
    the sentence may go on to give."""
    if intent and (intended := intent_clause(text)):
        return intended
    why = _WHICH_IS_WHY.search(text)
    if why:
        lead = _LEAD.match(text)
        return _within_bounds(text, lead.end() if lead and lead.end() < why.start() else 0, why.start())
    reasons = (
        m for m in (_MARKER_OR_USE if uses else _MARKER).finditer(text)
        if (m.group().lower() != "as" or not _COMPARISON.search(text[: m.start()]))
        and not _DENIED.search(text[: m.start()])
    )  # fmt: skip
    firsts = [m for m in (next(reasons, None), _AS_OPENING.search(text)) if m is not None]
    match = min(firsts, key=lambda m: m.start(), default=None)
    if match is None:
        return None
    start = match.start()
    before = text[:start].strip(" (")
    opening = (not before.split() or before.lower() in {"in", "it is"} or bool(_SHORT_LEAD.match(before))
               or match.re is _AS_OPENING)  # fmt: skip
    rest = text[match.end() :]
    end_at = rest.find(",") if opening and "," in rest else _CLAUSE_END.search(rest).start()  # type: ignore[union-attr]
    end = match.end() + end_at
    if len(text[start:end].split()) > MAX_WORDS:
        # "because there is compelling evidence that these have quite a low specificity (particularly in ...), and
        # do not ...": a clause too long to be an answer ends at its first aside or comma.
        cut = re.search(r"\s+\(|,\s", text[match.end() : end])
        end = match.end() + cut.start() if cut else end
    dropped = _DROPPED.match(text[start:end])
    if dropped:
        start += dropped.end()
    return _within_bounds(text, start, end)


def intent_clause(text: str) -> tuple[int, int] | None:
    """What a sentence says a thing is intended, designed or meant for ("as a debugging aid" of "... is primarily
    intended as a debugging aid as it simplifies ..."), as [start, end), up to a reason marker or its clause's end;
    None when it says none."""
    intended = _INTENT.search(text)
    if intended is None:
        return None
    rest = text[intended.end() :]
    stop = min((m.start() for m in (_MARKER.search(rest), _CLAUSE_END.search(rest)) if m), default=len(rest))
    return _within_bounds(text, intended.start(1), intended.end() + stop)


def asks_intent(question: str) -> bool:
    """Whether a question asks what a thing is intended, designed or meant for."""
    return bool(_ASKS_INTENT.search(question))


def _within_bounds(text: str, start: int, end: int) -> tuple[int, int] | None:
    """[start, end) without closing punctuation or a closing aside in parentheses, when it holds 2 to MAX_WORDS
    words and says more than "this"."""
    while end > start and text[end - 1] in " ,;:.":
        end -= 1
    aside = _ASIDE.search(text, start, end)  # "... due to the large number of points (n = 8, 448 cDNA probes)"
    if aside and len(text[start : aside.start()].split()) >= 2:
        end = aside.start()
    words = text[start:end].split()
    if re.search(r"\w-$", text[start:end]):
        return None  # "since set elements are order-": a sentence cut at a line break's hyphen
    if len(words) < 2 or len(words) > MAX_WORDS or not any(len(w) > 3 for w in words[1:]):
        return None  # "since the": a marker and a function word state nothing
    if len(words) <= POINTING_WORDS and _POINTS_BACK.search(text[start:end]):
        return None
    if _POINTS_AHEAD.fullmatch(text[start:end]):
        return None  # "for two reasons": the reasons follow in the next sentences
    return start, end


# "What is the rseed variable defined for in Zeileis, Meyer and Hornik's vcd vignette ...?": what follows "for in"
# says where the thing stands (many sentences share it), not what it is.
_CONTEXT = re.compile(r"\bfor\s+in\b.*$", re.I | re.S)


def clause_answer(question: str, texts: Sequence[str], cited: int | None = None) -> Clause | None:
    """The reason clause of the best sentence that states one and shares at least MIN_SHARED of the question's
    terms: a sentence sharing a term of what the question asks about (its focus) first, then the most shared, the
    sentence the model's answer rests on, `cited`, counting one more, then the better ranked; None when none. A
    clause that restates the question is passed over."""
    asked = set(terms(question))
    focus = set(terms(_CONTEXT.sub("for", question)))
    uses = bool(_ASKS_USE.search(question))
    intent = asks_intent(question)
    best: tuple[tuple[bool, int, int], Clause] | None = None
    for i, text in enumerate(texts):
        span = reason_clause(text, uses, intent)
        if span is None or restates_question(question, text[span[0] : span[1]]):
            continue
        words = set(terms(text))
        shared = len(asked & words)
        key = (bool(focus & words), shared + (i == cited), -i)
        if shared >= MIN_SHARED and (best is None or key > best[0]):
            best = (key, Clause(i, *span))
    return best[1] if best else None


RESTATED = 0.6  # the share of a reason clause's terms that are the question's, from which it restates the question


def restates_question(question: str, clause: str) -> bool:
    """Whether a reason clause is mostly the question's own terms (RESTATED of them or more): it repeats what is
    asked about instead of giving the reason ("In order to fit a Bradley-Terry model to these data" to "Why ... when
    it fits a Bradley-Terry model to the data?"). Chosen on the pool, dev5 and dev6 (in-sample): the clauses shown
    or withheld there hold 0 to 0.33 of the question's terms when right (one 0.57), 0.40 to 0.75 when wrong."""
    words = set(terms(clause))
    return bool(words) and len(words & set(terms(question))) >= RESTATED * len(words)


DESCRIPTION_WORDS = (4, 40)  # the fewest and most words of a description


_MEANS = re.compile(r"\b(?:by(?= (?:means of |way of )?[\w\-]+ing\b)|through|via|using)\s+", re.I)


def means_clause(text: str) -> tuple[int, int] | None:
    """The clause that says how something is done ("by doubling the number of cities", "through crowdsourcing",
    "using a bank of donated sentences") as [start, end), to the end of its clause; None when the sentence has none
    of 2 to MAX_WORDS words."""
    match = _MEANS.search(text)
    if match is None:
        return None
    start = match.start()
    end = match.end() + _CLAUSE_END.search(text[match.end() :]).start()  # type: ignore[union-attr]
    while end > start and text[end - 1] in " ,;:.":
        end -= 1
    return (start, end) if 2 <= len(text[start:end].split()) <= MAX_WORDS else None


def description_clause(text: str) -> tuple[int, int] | None:
    """The description a sentence gives, as [start, end): the sentence without a leading phrase of at most 4 words
    before a comma and its closing punctuation; None when that leaves fewer than 4 words or more than 40."""
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    end = len(text)
    while end > start and text[end - 1] in " ,;:.":
        end -= 1
    low, high = DESCRIPTION_WORDS
    return (start, end) if low <= len(text[start:end].split()) <= high else None


@dataclass(frozen=True)
class Description(Clause):
    """A description's range; `means` when it is the clause saying how ("by doubling ..."), else a whole sentence."""

    means: bool = False


def description_answer(question: str, texts: Sequence[str], cited: int | None) -> Description | None:
    """The description answering "how was it done" or "what is it", from the sentence the reader's answer rests on
    (`cited`), else the sentence sharing the most of the question's terms, at least MIN_SHARED (then the better
    ranked): to a "how" question the sentence's means clause when it has one, else the sentence's description;
    None when that sentence gives neither."""
    if cited is None:
        asked = set(terms(question))
        shared = [(len(asked & set(terms(text))), -i) for i, text in enumerate(texts)]
        best = max(shared, default=(0, 0))
        cited = -best[1] if best[0] >= MIN_SHARED else None
    if cited is None:
        return None
    means = means_clause(texts[cited]) if re.match(r"\s*how\b", question, re.I) else None
    if means:
        return Description(cited, *means, means=True)
    span = description_clause(texts[cited])
    return Description(cited, *span) if span else None
