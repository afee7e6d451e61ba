"""The yes/no check: a reply's polarity against the negation in the sentence it rests on."""

from __future__ import annotations

from ..text.question import negated


def polarity_conflict(question: str, polarity: str | None, sentence: str) -> bool:
    """Whether a "yes" rests on a sentence that states a negative (a plain question only: one worded negatively
    has no clear polarity). Such a "yes" is turned to "no": small models say "yes" to a sentence that says "not".

    A "no" over a plainly worded sentence is not a conflict: "Is X larger than Y?" is answered "no" by "X is
    smaller than Y", which negates nothing.
    """
    return polarity == "yes" and not negated(question) and negated(sentence)
