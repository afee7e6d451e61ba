"""Scoring a user's own gold questions over their collection: evidence hit, answer accuracy, abstention, ECE.

Pure functions; the rules are those of the realqa development set (its README):
- evidence found: a cited span overlaps an occurrence of a gold quote in the same document (quotes are
  located in the stored text with runs of whitespace matched loosely);
- answer right: a gold answer or variant, normalized (lowercase, punctuation and articles dropped, digits
  split from letters), occurs in the exact answer as a token sequence, or token F1 >= 0.5; yes/no answers
  need the right polarity; an abstention is never a right answer to an answerable question; strict: a gold
  answer inside a long exact answer does not count, and a token F1 match does not count when the gold answer
  states a number the exact answer lacks ("0.5" is not "0.64");
- unanswerable questions: right when the system abstained.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ABSTENTION_MARKERS = ("not found in this collection", "unanswerable", "no evidence")
WITHHELD_MARKERS = ("no short answer found",)  # the evidence is shown without a guess
_ARTICLES = {"a", "an", "the"}


def normalize_tokens(text: str) -> list[str]:
    """Lowercase, drop punctuation and articles, split digits from letters; return the tokens."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)", " ", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    return [t for t in text.split() if t not in _ARTICLES]


def token_f1(prediction: Sequence[str], gold: Sequence[str]) -> float:
    """Return the SQuAD token F1 of two token lists."""
    if not prediction or not gold:
        return float(prediction == gold)
    remaining = list(gold)
    common = 0
    for token in prediction:
        if token in remaining:
            remaining.remove(token)
            common += 1
    if not common:
        return 0.0
    precision, recall = common / len(prediction), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def contains_sequence(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Return whether needle occurs in haystack as a contiguous token sequence."""
    n = len(needle)
    return n > 0 and any(list(haystack[i : i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def is_withheld(exact_answer: str) -> bool:
    """Return whether an exact answer withholds a guess (the evidence is shown instead)."""
    flat = " ".join(exact_answer.lower().split())
    return any(marker in flat for marker in WITHHELD_MARKERS)


def is_abstention(exact_answer: str) -> bool:
    """Return whether an exact answer says the collection does not answer the question."""
    flat = " ".join(exact_answer.lower().split())
    return not flat or any(marker in flat for marker in ABSTENTION_MARKERS)


def polarity(text: str) -> str | None:
    """Return 'yes' or 'no' when the text opens with (or is) a polar answer, else None."""
    tokens = normalize_tokens(text)
    if not tokens:
        return None
    if tokens[0] in {"yes", "no"}:
        return tokens[0]
    if tokens[0] in {"not", "never", "negative"}:
        return "no"
    return None


def answer_correct(exact_answer: str, answers: Sequence[str], qtype: str = "", strict: bool = False) -> bool:
    """Return whether an exact answer matches a gold answer or variant under the rules above.

    `strict`: a gold answer contained in the exact answer counts only when the exact answer is short (at most
    twice the gold's tokens, or the gold's plus 3): a whole sentence is evidence, not an exact answer.
    """
    if is_abstention(exact_answer) or is_withheld(exact_answer):
        return False
    gold_polar = polarity(answers[0]) if answers else None
    if qtype == "yes_no" or (gold_polar and len(normalize_tokens(answers[0])) == 1):
        return gold_polar is not None and polarity(exact_answer) == gold_polar
    predicted = normalize_tokens(exact_answer)
    stated = numbers_in(exact_answer)
    for answer in answers:
        gold = normalize_tokens(answer)
        short = len(predicted) <= max(2 * len(gold), len(gold) + 3)
        if contains_sequence(predicted, gold) and (short or not strict):
            return True
        # Numbers must agree (strict): "0.1672" is not "0.1375", though their tokens "0 1672" and "0 1375" half match.
        if token_f1(predicted, gold) >= 0.5 and (not strict or numbers_in(answer) <= stated):
            return True
    return False


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*|\.\d+")


def numbers_in(text: str) -> set[str]:
    """The numbers a text states, thousands separators dropped and leading zeros kept apart ("3,100" -> "3100",
    "0.5" -> "0.5", ".5" -> "0.5")."""
    out = set()
    for match in _NUMBER.findall(unicodedata.normalize("NFKC", text)):
        number = match.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", match) else match
        out.add(f"0{number}" if number.startswith(".") else number)
    return out


# A digit of a quote also matches its raised or lowered form: a quote copied as "Blocks4" or "cm2" is found where
# the text keeps the print's "Blocks⁴" and "cm²" (and the other way round).
_DIGIT_FORMS = {d: f"[{d}{sup}{sub}]" for d, sup, sub in zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹", "₀₁₂₃₄₅₆₇₈₉", strict=True)}
_DIGIT_FORMS |= {sup: _DIGIT_FORMS[d] for d, sup in zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹", strict=True)}
_DIGIT_FORMS |= {sub: _DIGIT_FORMS[d] for d, sub in zip("0123456789", "₀₁₂₃₄₅₆₇₈₉", strict=True)}


def locate_quote(text: str, quote: str) -> list[tuple[int, int]]:
    """Return every (start, end) where the quote occurs in text, runs of whitespace matched loosely (and a digit
    in any of its plain, raised or lowered forms)."""
    words = quote.split()
    if not words:
        return []
    pattern = r"\s+".join("".join(_DIGIT_FORMS.get(ch) or re.escape(ch) for ch in word) for word in words)
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


Range = tuple[str, int, int]  # docid, start, end


def overlaps(a: Range, b: Range) -> bool:
    """Return whether two ranges share a document and at least one character."""
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


@dataclass(frozen=True)
class QuestionScore:
    answerable: bool
    evidence_hit: bool
    evidence_precision: float | None  # share of cited spans on gold evidence (None: nothing cited)
    answer_correct: bool
    abstained: bool
    confidence: float
    gold_found: int  # gold quotes located in the stored text
    gold_total: int
    answer_strict: bool = False  # right under the strict rule (a whole sentence is not an exact answer)
    withheld: bool = False  # no short answer shown: the evidence without a guess
    candidate_strict: bool = False  # the best short answer, shown or withheld, is right (what confidence is about)

    @property
    def right(self) -> bool:
        """Return whether the question was handled right: a right answer, or an abstention when unanswerable."""
        return self.answer_correct if self.answerable else self.abstained


def score_question(
    exact_answer: str,
    confidence: float,
    cited: Sequence[Range],
    gold_answers: Sequence[str],
    gold_ranges: Sequence[Range],
    gold_found: int,
    gold_total: int,
    qtype: str = "",
    candidate: str | None = None,
) -> QuestionScore:
    """Score one question from its run's exact answer, confidence and cited ranges.

    `candidate` is the best short answer whether shown or withheld (the confidence is P(it is right)); by default
    the exact answer.
    """
    # A question with no gold quote is still answerable when its answers say so (a CSV's rows may give no quote).
    stated = any(normalize_tokens(a) != ["unanswerable"] for a in gold_answers)
    answerable = qtype != "unanswerable" and (gold_total > 0 or stated)
    on_gold = [c for c in cited if any(overlaps(c, g) for g in gold_ranges)]
    abstained = is_abstention(exact_answer)
    return QuestionScore(
        answerable=answerable,
        evidence_hit=bool(on_gold),
        evidence_precision=len(on_gold) / len(cited) if cited else None,
        answer_correct=answerable and answer_correct(exact_answer, gold_answers, qtype),
        abstained=abstained,
        confidence=float(confidence),
        gold_found=gold_found,
        gold_total=gold_total,
        answer_strict=answerable and answer_correct(exact_answer, gold_answers, qtype, strict=True),
        withheld=is_withheld(exact_answer),
        candidate_strict=answerable
        and not abstained
        and answer_correct(exact_answer if candidate is None else candidate, gold_answers, qtype, strict=True),
    )


def expected_calibration_error(confidences: Sequence[float], outcomes: Sequence[bool], bins: int = 10) -> float:
    """Return ECE over equal-width bins: sum over bins of |accuracy - mean confidence| weighted by bin size."""
    if not confidences:
        return 0.0
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        members = [
            i for i, c in enumerate(confidences) if lo <= min(max(c, 0.0), 1.0) < hi or (b == bins - 1 and c >= 1.0)
        ]
        if members:
            accuracy = sum(outcomes[i] for i in members) / len(members)
            mean = sum(confidences[i] for i in members) / len(members)
            total += len(members) / len(confidences) * abs(accuracy - mean)
    return total


def reliability_bins(confidences: Sequence[float], outcomes: Sequence[bool], bins: int = 5) -> list[list[float | int]]:
    """Return a reliability diagram: [bin_low, bin_high, n, mean confidence, accuracy] per non-empty bin."""
    out: list[list[float | int]] = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        members = [
            i for i, c in enumerate(confidences) if lo <= min(max(c, 0.0), 1.0) < hi or (b == bins - 1 and c >= 1.0)
        ]
        if members:
            mean = sum(confidences[i] for i in members) / len(members)
            accuracy = sum(outcomes[i] for i in members) / len(members)
            out.append([round(lo, 2), round(hi, 2), len(members), round(mean, 4), round(accuracy, 4)])
    return out


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Return the area under the ROC curve of scores for labels (None when one class is missing)."""
    pos = [s for s, right in zip(scores, labels, strict=True) if right]
    neg = [s for s, right in zip(scores, labels, strict=True) if not right]
    if not pos or not neg:
        return None
    return sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))


def papers_summary(scores: Iterable[QuestionScore]) -> dict[str, float | int]:
    """Aggregate question scores into the papers benchmark's headline figures.

    ECE, AUROC and the reliability bins take the answer's confidence as P(its best short answer is right, under the
    strict rule), shown or withheld below the threshold; an abstention is never right and carries confidence 0.
    `answer_strict` counts only short answers shown; `confident_wrong` is the share of answerable questions given a
    wrong short answer shown at confidence >= 0.5.
    """
    items = list(scores)
    answerable = [s for s in items if s.answerable]
    unanswerable = [s for s in items if not s.answerable]
    # Evidence is scored where a gold quote says where the answer is.
    quoted = [s for s in answerable if s.gold_total > 0]
    precisions = [s.evidence_precision for s in quoted if s.evidence_precision is not None]

    def share(values: list[bool]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    return {
        "questions": len(items),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "evidence_hit": share([s.evidence_hit for s in quoted]),
        "evidence_precision": round(sum(precisions) / len(precisions), 4) if precisions else 0.0,
        "answer_accuracy": share([s.answer_correct for s in answerable]),
        "answer_strict": share([s.answer_strict for s in answerable]),
        "withheld": share([s.withheld for s in answerable]),
        "confident_wrong": share(
            [not s.answer_strict and not s.withheld and not s.abstained and s.confidence >= 0.5 for s in answerable]
        ),
        "candidate_strict": share([s.candidate_strict for s in answerable]),
        "auroc": _rounded(auroc([s.confidence for s in items], [s.candidate_strict for s in items])),
        "abstain_correct": share([s.abstained for s in unanswerable]),
        "abstained_unanswerable": sum(s.abstained for s in unanswerable),
        "false_abstain": share([s.abstained for s in answerable]),
        "ece": round(expected_calibration_error([s.confidence for s in items], [s.candidate_strict for s in items]), 4),
        "reliability": reliability_bins([s.confidence for s in items], [s.candidate_strict for s in items]),
        "gold_quotes_found": sum(s.gold_found for s in items),
        "gold_quotes": sum(s.gold_total for s in items),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
