"""Where the reader's answer stands in its evidence: an exact character range, or nothing (the answer is withheld).

Matching forgives what a model changes when it copies: case, runs of whitespace, dash and quote forms, a line-end
hyphen, spaces around a unit ("3.9 %" for "3.9%"), a count the sentence spells out ("28" for "Twenty eight"), a
leading zero the text leaves out ("0.1" for ".1"), and in a table row a percent sign the row leaves to its column's
header ("97.9" for "97.9%"). A footnote mark after a word ends the word ("Threading-Building-Blocks⁴"). It forgives
nothing else: an answer whose words are not in a sentence is not shown, whatever the model's confidence; nor is a
number that stands only among a figure's axis ticks ("0.5" of "−0.5 0.5 1.5 2.5").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.question import NUMBER_WORDS, TENS_WORDS
from ..text.tables import in_axis_ticks, is_row

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032`"), "'") | dict.fromkeys(
    map(ord, "\u201c\u201d\u201e\u201f\u2033"), '"'
)
_IGNORED = {"\u00ad", "\u200b", "\ufeff"}


@dataclass(frozen=True)
class Anchor:
    """The answer's range [start, end) inside evidence sentence `sentence`."""

    sentence: int
    start: int
    end: int


def folded(text: str, spaces: bool = True) -> tuple[str, list[int]]:
    """Return the text folded for matching, and for each folded character its index in the original text."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch in _IGNORED:
            continue
        ch = ch.translate(_DASHES).translate(_QUOTES).lower()
        if ch.isspace():
            if not spaces or (out and out[-1] == " "):
                continue
            ch = " "
        out.append(ch)
        where.append(i)
    return "".join(out), where


def _find(answer: str, sentence: str, spaces: bool) -> tuple[int, int] | None:
    needle, _ = folded(answer, spaces)
    needle = needle.strip()
    hay, where = folded(sentence, spaces)
    if not needle:
        return None
    # Whole words only: "12" must not anchor inside "2012" or "x12b".
    for match in re.finditer(re.escape(needle), hay):
        start, end = where[match.start()], where[match.end() - 1] + 1
        before = sentence[start - 1] if start > 0 else " "
        after = sentence[end] if end < len(sentence) else " "
        if (needle[0].isalnum() and _word_char(before)) or (needle[-1].isalnum() and _word_char(after)):
            continue
        if needle[0] == "." and before.isdigit():  # ".1" is not the tail of "10.1"
            continue
        if in_axis_ticks(sentence, start, end):  # "0.5" of a figure's "−0.5 0.5 1.5 2.5": no stated value
            continue
        whole = needle.isascii() and needle.isdigit()
        if whole and re.search(r"\d\.$", sentence[:start]):
            continue  # "1" is not the decimals of "4.1"
        decimals = re.match(r"\.\d+", sentence[end:]) if whole else None
        return start, end + (decimals.end() if decimals else 0)  # "4" of "version 4.1" is "4.1"
    return None


_MARKS = set("⁰¹²³⁴⁵⁶⁷⁸⁹")  # footnote marks: superscript digits are alphanumeric to Python, not to a reader


def _word_char(ch: str) -> bool:
    return ch.isalnum() and ch not in _MARKS


def anchor(answer: str, sentences: Sequence[str], named: int | None = None) -> Anchor | None:
    """Return where the answer stands: in the sentence the reader named first, then the others in rank order."""
    order = ([named] if named is not None and 0 <= named < len(sentences) else []) + [
        i for i in range(len(sentences)) if i != named
    ]
    variants = _variants(answer)
    for spaces in (True, False):
        for index in order:
            for variant in variants + (_cell(answer) if is_row(sentences[index]) else []):
                found = _find(variant, sentences[index], spaces)
                if found:
                    return Anchor(index, *found)
    return None


_LIST_SEPARATOR = re.compile(r"\s*(?:[,;&]|\band\b|\bor\b)\s*", re.I)
MAX_GAP_WORDS = 8  # words between two items of one list ("German (De), Dutch (Nl), Russian (Ru), Spanish")


def list_items(answer: str) -> list[str]:
    """The items of a reply that lists several things ("F1, Acc", "A, B and C"), or [] for any other reply."""
    items = [item.strip(" .") for item in _LIST_SEPARATOR.split(answer)]
    items = [item for item in items if len(item) >= 2]
    return items if len(items) >= 2 else []


def anchor_items(answer: str, sentences: Sequence[str], named: int | None = None) -> Anchor | None:
    """Where a list reply stands that no sentence writes as a whole ("F1, Acc" of "precision, recall, F1 and
    accuracy"): in the sentence holding the most of its items (at least half; then the one the reader named, then
    the better ranked), from its first item found to its last while only a list lies between (a separator, at most
    MAX_GAP_WORDS words); None when no sentence holds half of the items."""
    items = list_items(answer)
    best: tuple[tuple[int, bool, int], int, list[tuple[int, int]]] | None = None
    for index, sentence in enumerate(sentences):
        found = sorted((a.start, a.end) for item in items if (a := anchor(item, [sentence])) is not None)
        key = (len(found), index == named, -index)
        if 2 * len(found) >= len(items) and (best is None or key > best[0]):
            best = (key, index, found)
    if not items or best is None:
        return None
    _, index, found = best
    start, end = found[0]
    for item_start, item_end in found[1:]:
        gap = sentences[index][end:item_start]
        if len(gap.split()) > MAX_GAP_WORDS or not _LIST_SEPARATOR.search(gap):
            break
        end = max(end, item_end)
    return Anchor(index, start, end)


def _variants(answer: str) -> list[str]:
    """The answer as given, then without a leading article or trailing punctuation, then a count as words, then a
    decimal fraction as a text may print it without its leading zero ("0.1" for ".1"), then a whole number of four
    digits or more with its thousands grouped as a text prints them ("1,456" for "1456")."""
    text = answer.strip()
    out = [text]
    bare = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.I).strip().rstrip(".,;:")
    if bare and bare != text:
        out.append(bare)
    fraction = re.fullmatch(r"([-+]?)0(\.\d+)", bare or text)
    return out + spelled(bare or text) + ([fraction.group(1) + fraction.group(2)] if fraction else []) + grouped(
        bare or text
    ) + percent_forms(bare or text)  # fmt: skip


def percent_forms(answer: str) -> list[str]:
    """A percentage as a sentence may write it otherwise: "40 percent", "40 per cent", "40 percentage" or "40%"
    for "40%", and "40%" for "40 percent"."""
    match = _UNIT_AFTER.match(answer.strip())
    if match is None:
        return []
    forms = (f"{match.group(1)}%", f"{match.group(1)} percent", f"{match.group(1)} per cent",
             f"{match.group(1)} percentage")  # fmt: skip
    return [form for form in forms if form.lower() != answer.strip().lower()]


def grouped(number: str) -> list[str]:
    """A whole number of 4 digits or more (a unit may follow) with its thousands grouped by a comma or a thin
    space: "1,456" for "1456" ("1456 persons": "1,456 persons"). Not by a plain space: "1 456" may be two cells."""
    match = re.fullmatch(r"(\d{4,})(\s*\D.*)?", number)
    if match is None:
        return []
    digits, rest = match.group(1), match.group(2) or ""
    groups = [digits[max(0, i - 3) : i] for i in range(len(digits), 0, -3)][::-1]
    return [separator.join(groups) + rest for separator in (",", "\u2009")]


def spelled(count: str) -> list[str]:
    """A whole number from 2 to 99 as a sentence may spell it: "four"; "twenty eight" and "twenty-eight".
    One is left out: "one" is more often a pronoun than a count."""
    if not re.fullmatch(r"\d{1,2}", count) or int(count) < 2:
        return []
    n = int(count)
    if n < 20:
        return [NUMBER_WORDS[n]]
    tens, unit = TENS_WORDS[n // 10 - 2], NUMBER_WORDS[n % 10]
    return [tens] if n % 10 == 0 else [f"{tens} {unit}", f"{tens}-{unit}"]


_UNIT_AFTER = re.compile(r"^([-+±−]?\d[\d,]*(?:\.\d+)?)\s*(?:%|percent(?:age)?|per cent)$", re.I)


def _cell(answer: str) -> list[str]:
    """A percentage as a table row prints it: the number alone ("97.9" under a "Yes (%)" column)."""
    match = _UNIT_AFTER.match(answer.strip())
    return [match.group(1)] if match else []


_PLACEHOLDER = re.compile(
    r"(?:\b(?:Table|Figure|Fig\.|Section|Eq\.)\s+)?\b(?:BIBREF|TABREF|FIGREF|SECREF|EQREF)\d+\b"
    r"|\b(?:tab|fig|sec|eq|app|alg|lst):[\w\-.:]*\w"  # a LaTeX label left in the text ("tab:int-stats")
)


def without_placeholders(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Shrink an answer's range past the reference placeholders some datasets leave in text ("Turkish BIBREF10",
    "Table TABREF12", a LaTeX label such as "tab:int-stats"): they are never part of an answer. An answer that is
    nothing else comes back empty."""
    text = sentence[start:end]
    blocked = [(m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
    words = [m for m in re.finditer(r"\S+", text) if not any(a <= m.start() < b for a, b in blocked)]
    if not words:
        return start, start
    last = words[-1]
    tail = last.end()
    while tail > last.start() + 1 and text[tail - 1] in ",;:([":
        tail -= 1
    return start + words[0].start(), start + tail


_WORD = re.compile(r"[\w%.\-/]+", re.UNICODE)
_LEADS = {"because", "since", "as", "so", "that", "to", "it", "they", "in", "order"}  # a clause's lead the model adds
MIN_RUN_WORDS = 3
MIN_RUN_SHARE = 0.6


def anchor_run(answer: str, sentences: Sequence[str], named: int | None = None) -> Anchor | None:
    """For a clause the model put in its own words at the edges ("because the counters would overflow"): the
    longest run of its words that a sentence writes in that order, when the run holds at least 3 words and most
    of the answer's (the model's added lead words not counted). Never shorter: a word or two proves nothing."""
    words = [w.lower() for w in _WORD.findall(answer)]
    while words and words[0] in _LEADS:
        words = words[1:]
    if len(words) < MIN_RUN_WORDS:
        return None
    order = ([named] if named is not None and 0 <= named < len(sentences) else []) + [
        i for i in range(len(sentences)) if i != named
    ]
    best: tuple[int, int, int, int] | None = None  # (length, sentence, start, end)
    for index in order:
        spans = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(sentences[index])]
        for i in range(len(spans)):
            for j in range(len(words)):
                k = 0
                while i + k < len(spans) and j + k < len(words) and spans[i + k][0] == words[j + k]:
                    k += 1
                if k and (best is None or k > best[0]):
                    best = (k, index, spans[i][1], spans[i + k - 1][2])
    if best is None or best[0] < MIN_RUN_WORDS or best[0] < MIN_RUN_SHARE * len(words):
        return None
    _, index, start, end = best
    return Anchor(index, start, end)


_PRODUCT = re.compile(r"(?:\d[\d.,]*\s*[×x]\s*)+$")  # "4 × " before "21": one value of the form "4 × 21"
_BRACED = re.compile(r"[{\[](?:\s*[-+]?\d[\d.]*\s*,)*\s*$")  # "{2, " before "3}": a set of values
_ABBREVIATION = r"(?:\s*\([\w.\-]{1,6}\))"  # an item's short form after it: "French (Fr), German (De)"
_SEPARATOR_BEFORE = re.compile(rf"{_ABBREVIATION}?(?:,\s+(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)$")
_CONJUNCTION = re.compile(r"\b(?:and|or)\b|&")
_SEPARATOR_AFTER = re.compile(rf"^{_ABBREVIATION}?(?:,\s+(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)")
_FUNCTION_WORDS = {"the", "a", "an", "of", "in", "on", "for", "to", "with", "by", "we", "is", "are", "was", "were",
                   "both", "between", "from", "at", "as", "that", "which", "it", "and", "or", "also"}  # fmt: skip


_RANGE_HIGH = re.compile(r"\s*(?:(to|[-\u2013])|and)\s*[-+]?\d[\d.,]*(?:\s?%)?")
_RANGE_LOW = re.compile(
    r"(?:\b[Bb]etween\s+([-+]?\d[\d.,]*\s?%?)\s+and|([-+]?\d[\d.,]*\s?%?)\s*(?:to|[-\u2013]))\s*$"
)


def whole_value(sentence: str, where: Anchor, plural: bool, listed: bool = False) -> Anchor:
    """Widen an answer that is one part of what the sentence states as one: a factor of a product ("21" of
    "4 × 21"), either end of a range ("20%" of "10% to 20%", "3" of "between 3 and 5"); for a question asking for
    several things (`plural`: "which coverage levels"), one item of a list that ends with "and" or "or" ("95%" of
    "80% and 95%", "C6" of "C6 and Hep G2", "Medline" of "PubMed, EMBASE, and Medline"). An item is one or two words
    that look like a value or a name, as the answer does; when the reader itself gave a list (`listed`), a single
    word of any case is an item too ("precision, recall, F1")."""
    start, end = where.start, where.end
    answer = sentence[start:end]
    product = _PRODUCT.search(sentence[:start])
    if product and re.fullmatch(r"\d[\d.,]*", answer.strip()):
        start = product.start()
    # "20%" of "about 10% to 20%", "5" of "between 3 and 5": a range is stated as one value.
    if re.fullmatch(r"[-+]?\d[\d.,]*\s?%?", answer.strip()):
        low = _RANGE_LOW.search(sentence[:start])
        high = None if low else _RANGE_HIGH.match(sentence[end:])
        if high and (high.group(1) or re.search(r"\b[Bb]etween\s+$", sentence[:start])):
            end += high.end()
        start = (low.start(1) if low.group(1) else low.start(2)) if low else start
    if not plural:
        return Anchor(where.sentence, start, end)
    braces = _BRACED.search(sentence[:start]), re.match(r"^(?:\s*,\s*[-+]?\d[\d.]*)*\s*[}\]]", sentence[end:])
    if braces[0] and braces[1] and re.fullmatch(r"[-+]?\d[\d.]*", answer):  # "3" of "dtd = {2, 3}"
        return Anchor(where.sentence, braces[0].start() + 1, end + len(braces[1].group().rstrip("}] ")))
    lowercase = answer.islower() and len(answer.split()) == 1  # "accuracy" of "precision, recall and accuracy"
    lowercase = lowercase or (None if listed else False)
    # Forwards: the list ends after the item that follows "and" / "or" ("C6" of "C6 and Hep G2").
    rest_at, last = end, end
    while sep := _SEPARATOR_AFTER.match(sentence[rest_at:]):
        item_end = _item_after(sentence, rest_at + sep.end(), lowercase)
        if item_end is None:
            break
        rest_at = item_end
        if _CONJUNCTION.search(sep.group()):
            short_form = re.match(_ABBREVIATION, sentence[item_end:])
            last = item_end + (short_form.end() if short_form else 0)
            break
    # Backwards: an answer that ends no list must be its last item, after "and" / "or" ("95%" of "80% and 95%");
    # one inside a list just found takes the items before it ("B" of "A, B, and C").
    rest, open_list = sentence[:start], last > end
    while (sep := _SEPARATOR_BEFORE.search(rest)) and (open_list or _CONJUNCTION.search(sep.group())):
        item = _item_before(rest[: sep.start()], lowercase)
        if item is None:
            break
        start, rest, open_list = item, sentence[:item], True
    return Anchor(where.sentence, start, last)


def _looks_like_item(words: list[str], lowercase: bool | None) -> bool:
    """An item like the answer: one lowercase word (`lowercase` True), a name or value of one or two words
    (False), or either (None: the reader gave a list)."""
    if any(w.lower() in _FUNCTION_WORDS for w in words):
        return False
    if lowercase is not False and len(words) == 1 and words[0].isalpha():
        return True
    return not lowercase and all(re.search(r"[\dA-Z%]", w) for w in words)


def _item_before(text: str, lowercase: bool | None) -> int | None:
    """Where the list item that ends `text` starts (two words, else one), or None."""
    for count in (2, 1):
        match = re.search(rf"(?:[^\s,;:(){{}}\[\]]+ ){{{count - 1}}}[^\s,;:(){{}}\[\]]+$", text)
        if match and _looks_like_item(match.group().split(), lowercase):
            return match.start()
    return None


def _item_after(sentence: str, at: int, lowercase: bool | None) -> int | None:
    """Where the list item that starts at `at` ends (two words, else one), or None."""
    for count in (2, 1):
        match = re.match(rf"[^\s,;:(){{}}\[\]]+(?: [^\s,;:(){{}}\[\]]+){{{count - 1}}}", sentence[at:])
        item = match.group().rstrip(".!?'\"") if match else ""
        if item and _looks_like_item(item.split(), lowercase):
            return at + len(item)
    return None


_NAME_PART = re.compile(r"^(?:['’]s\b|\s+(?:of|for|de|von|van)\b|\s+[A-Z][\w\-]*)")


def through_noun(sentence: str, where: Anchor, noun: str) -> Anchor:
    """Widen a name cut short of the noun the question asks for ("SIGKDD 2014" of "SIGKDD 2014's Test of Time
    Award" to "which award"): when 1 to 4 words after it are parts of a name (capitalized, "of", "'s") up to that
    noun, the name runs through the noun."""
    if not noun:
        return where
    end, words = where.end, 0
    while words <= 4:
        after = re.match(rf"^\s+{re.escape(noun)}\b", sentence[end:], re.I)
        if after and words:  # the noun right after the answer adds nothing ("Adam" to "which optimizer")
            return Anchor(where.sentence, where.start, end + after.end())
        part = _NAME_PART.match(sentence[end:])
        if part is None:
            return where
        end += part.end()
        words += 1
    return where
