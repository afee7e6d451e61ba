"""The yes/no check: a reply's polarity against the negation or the restriction in the sentence it rests on."""

from __future__ import annotations

import re

from ..text.question import negated

# A question that asks about more than a limit ("kernels other than the RBF kernel", "any number of tips") ...
_BEYOND = re.compile(
    r"\b(?:other than|besides|apart from|beyond|any(?! of\b)|arbitrary|every|more than|(?:two|three|four) or more)\b",
    re.I,
)
# ... answered by a sentence that states the limit ("optimized for the RBF kernel only", "only accepts white noise").
_RESTRICTED = re.compile(r"\b(?:only|solely|exclusively|(?:limited|restricted) to)\b(?!\s+(?:if|when)\b)", re.I)


def polarity_conflict(question: str, polarity: str | None, sentence: str) -> bool:
    """Whether a "yes" rests on a sentence that states a negative (a plain question only: one worded negatively
    has no clear polarity), or that states a limit where the question asks about more than it. Such a "yes" is
    turned to "no": small models say "yes" to a sentence that says "not" or "only".

    A "no" over a plainly worded sentence is not a conflict: "Is X larger than Y?" is answered "no" by "X is
    smaller than Y", which negates nothing.
    """
    if polarity != "yes" or negated(question):
        return False
    return negated(sentence) or beyond_a_limit(question, sentence)


def beyond_a_limit(question: str, sentence: str) -> bool:
    """Whether the question asks about more than the sentence allows: "... kernels other than the RBF kernel?"
    over "optimized for the RBF kernel only" (not "not only", which adds rather than limits)."""
    limit = _RESTRICTED.search(sentence)
    if limit is None or re.search(r"\bnot\s+$", sentence[: limit.start()], re.I):
        return False
    return bool(_BEYOND.search(question))
