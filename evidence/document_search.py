"""Search inside one document's canonical text: every place its words occur, in order, with page and context."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_QUERY_CHARS = 200
MAX_QUERY_WORDS = 12
MAX_MATCHES = 200
CONTEXT_CHARS = 70


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    page: int | None
    before: str
    text: str
    after: str


# Between two letters a typed hyphen may be printed as any hyphen, may be followed by a line break or space
# ("back-\nend", "back- end"), or may be gone where the parser joined a word broken at a line end ("backend").
HYPHENS = "-\u00ad\u2010\u2011"
OPTIONAL_HYPHEN = f"(?:[{HYPHENS}]\\s*)?"
# What groups the digits of a number: a comma, a space, or one of the narrow spaces typesetters use.
GROUPING = ",\u00a0\u2009\u202f "
# A number typed with its groups ("9,280", "9 280"): searched as its digits, so it finds 9280 written any way.
TYPED_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[,\u00a0\u2009\u202f ]\d{3})+(?!\d)(?![,\u00a0\u2009\u202f]\d)")
PIECES = re.compile(rf"\d+|[{HYPHENS}]|.", re.DOTALL)


def number_pattern(digits: str) -> str:
    """A whole number written with or without its groups: "9280" finds 9280, 9,280 and 9 280 (not 19,280)."""
    if len(digits) < 4 or digits.startswith("0"):
        body = digits
    else:
        head = len(digits) % 3 or 3
        groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
        body = f"[{GROUPING}]?".join(groups)
    # Not a piece of a longer number: no digit around it, and no thousands group before or after it.
    before = r"(?<!\d)" + (r"(?<!\d[,\u00a0\u2009\u202f])" if len(digits) % 3 == 0 else "")
    return before + body + r"(?!\d)(?![,\u00a0\u2009\u202f]\d{3}(?!\d))"


def word_pattern(word: str) -> str:
    """One typed word as a pattern: its numbers whole in any grouping, its hyphens as the printed page may have them."""
    pieces = PIECES.findall(word)
    out = []
    for i, piece in enumerate(pieces):
        if piece.isdecimal():
            out.append(number_pattern(piece))
        elif piece in HYPHENS:
            between_letters = 0 < i < len(pieces) - 1 and pieces[i - 1][-1].isalpha() and pieces[i + 1][0].isalpha()
            out.append(OPTIONAL_HYPHEN if between_letters else f"[{HYPHENS}]")
        else:
            out.append(re.escape(piece))
    return "".join(out)


def query_pattern(query: str) -> re.Pattern[str] | None:
    """The words of a query, in order, with any run of spaces or line breaks between them; case is ignored.

    A number matches however its digits are grouped and a hyphen between letters matches the word broken across a
    line (see `word_pattern`); everything else typed is literal."""
    query = TYPED_GROUPED.sub(lambda m: re.sub(r"\D", "", m.group()), query[:MAX_QUERY_CHARS])
    words = query.split()[:MAX_QUERY_WORDS]
    if not words:
        return None
    return re.compile(r"\s+".join(word_pattern(word) for word in words), re.IGNORECASE)


def find_matches(
    text: str, query: str, page_at: Callable[[int], int | None] = lambda _offset: None, limit: int = MAX_MATCHES
) -> list[Match]:
    """Every occurrence of the query in the text (at most `limit`), each with its page and a little context."""
    pattern = query_pattern(query)
    if pattern is None:
        return []
    found = []
    for hit in pattern.finditer(text):
        start, end = hit.span()
        before = " ".join(text[max(0, start - CONTEXT_CHARS) : start].split())
        after = " ".join(text[end : end + CONTEXT_CHARS].split())
        found.append(Match(start, end, page_at(start), before, " ".join(hit.group().split()), after))
        if len(found) >= limit:
            break
    return found
