"""Evidence localization for QA (JevGPT 3.3, appendix A.1) as pure functions over a Judge.

Per region (an overlapping window of a unit's blocks): a Noul e = P(region holds evidence for the
sub-question). If e >= 0.5 a Choice over the region's blocks picks the most probable block, and the
second too when the first is below 0.8 and the second has at least 0.15. Adaptive reading: a unit
with no supported region but a near miss grows its best region by up to two more "pages" of
neighbouring blocks and is judged again; it stops when supported or when nothing new can be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import Block, ChoiceAnswer, ChoiceQuestion, Judge, NoulQuestion, Unit

TAU_LOC = 0.5
TOP_ALONE = 0.8
SECOND_MIN = 0.15
MAX_REGIONS = 16
BATCH_UNITS = 10
MAX_UNITS_PER_REQUEST = 60
MAX_SUB_QUESTIONS = 6
EXTRA_PAGES = 2
# Short documents (an abstract of a few sentences): regions of 3 sentences moving by 1 cover the whole unit
# within 16 regions, and there is nothing around a region to read adaptively. Chosen on out-of-fold figures
# of the fitting split (bench/fitting), passed to a run as its "localize" configuration.
SHORT_DOCUMENT_OPTIONS: dict[str, object] = {"size": 3, "stride": 1, "adapt_floor": None}


@dataclass(frozen=True)
class EvidenceSpan:
    """A raw evidence span with exact coordinates and the probabilities that chose it."""

    docid: str
    start: int
    end: int
    quote: str
    page: int | None
    probability: float  # Noul e of the region that selected it
    choice_probability: float  # the block's share in the region's Choice
    sub_question: str
    kind: str = "sentence"


@dataclass
class Localization:
    """Spans found for the sub-questions, plus every judgment made (for the live event stream)."""

    spans: list[EvidenceSpan] = field(default_factory=list)
    judgments: list[dict[str, object]] = field(default_factory=list)
    _index: dict[tuple[str, int, int, str], int] = field(default_factory=dict, repr=False)

    def supported(self) -> set[str]:
        """Return the sub-questions that got at least one span."""
        return {s.sub_question for s in self.spans}


def windows(n_blocks: int, size: int = 4, stride: int = 2, max_regions: int = MAX_REGIONS) -> list[tuple[int, ...]]:
    """Return overlapping windows of block indices that cover the unit in at most max_regions windows."""
    if n_blocks <= 0:
        return []
    if n_blocks <= size:
        return [tuple(range(n_blocks))]
    if (n_blocks - size + stride - 1) // stride + 1 > max_regions:
        # A long unit: widen the stride (and the window with it) so 16 regions still cover every block.
        stride = -(-(n_blocks - size) // (max_regions - 1))
        size = max(size, stride + 1)
    starts = list(range(0, n_blocks - size + 1, stride))
    if starts[-1] + size < n_blocks:
        starts.append(n_blocks - size)
    return [tuple(range(s, s + size)) for s in starts]


def select(
    answer: ChoiceAnswer, top_alone: float = TOP_ALONE, second_min: float = SECOND_MIN
) -> list[tuple[str, float]]:
    """Apply Select: the most probable option, plus the second when the first < 0.8 and the second >= 0.15."""
    ranked = answer.ranked()
    chosen = ranked[:1]
    if len(ranked) > 1 and ranked[0][1] < top_alone and ranked[1][1] >= second_min:
        chosen.append(ranked[1])
    return chosen


def grow(window: tuple[int, ...], n_blocks: int, page: int) -> tuple[int, ...]:
    """Extend a window by `page` blocks on each side (one more page of surrounding context)."""
    lo, hi = max(0, window[0] - page), min(n_blocks, window[-1] + 1 + page)
    return tuple(range(lo, hi))


def _judge_regions(
    judge: Judge, goal: str, regions: list[tuple[Unit, tuple[int, ...]]], out: Localization, tau: float
) -> list[float]:
    """Judge regions with one Noul call and one Choice call; append selected spans; return the e values."""
    if not regions:
        return []
    es = judge.noul([NoulQuestion(goal, unit, window) for unit, window in regions])
    picks: list[tuple[Unit, tuple[int, ...], float]] = []
    questions: list[ChoiceQuestion] = []
    for (unit, window), e in zip(regions, es, strict=True):
        out.judgments.append({"kind": "noul", "goal": goal, "docid": unit.docid, "blocks": list(window), "p": e})
        if e < tau:
            continue
        if len(window) == 1:
            _add(out, unit.blocks[window[0]], e, 1.0, goal)
            continue
        picks.append((unit, window, e))
        questions.append(ChoiceQuestion(goal, {f"b{i}": unit.blocks[i] for i in window}, unit))
    for (unit, _window, e), answer in zip(picks, judge.choice(questions) if questions else [], strict=True):
        chosen = select(answer)
        out.judgments.append(
            {
                "kind": "choice",
                "goal": goal,
                "docid": unit.docid,
                "p": answer.probabilities,
                "chosen": [label for label, _ in chosen],
            }
        )
        for label, p in chosen:
            _add(out, unit.blocks[int(label[1:])], e, p, goal)
    return es


def _add(out: Localization, block: Block, e: float, p: float, goal: str) -> None:
    """Record a selected block once per sub-question, keeping its best probabilities."""
    key = (block.docid, block.start, block.end, goal)
    i = out._index.get(key)
    if i is None:
        out._index[key] = len(out.spans)
        out.spans.append(
            EvidenceSpan(block.docid, block.start, block.end, block.text, block.page, e, p, goal, block.kind)
        )
        return
    s = out.spans[i]
    if e > s.probability or p > s.choice_probability:
        out.spans[i] = EvidenceSpan(
            s.docid, s.start, s.end, s.quote, s.page, max(e, s.probability), max(p, s.choice_probability), goal, s.kind
        )


def localize_batch(
    judge: Judge,
    goal: str,
    units: Sequence[Unit],
    *,
    size: int = 4,
    stride: int = 2,
    tau: float = TAU_LOC,
    adapt_floor: float | None = 0.3,
    threshold: float | None = None,
) -> Localization:
    """Localize evidence for one sub-question in one batch of units (the unit of parallel work).

    With ``threshold`` set, the region rules are replaced by a plain selector: one Noul per block
    (all in one call) and every block whose probability reaches the threshold is kept.
    """
    out = Localization()
    if threshold is not None:
        singles = [(u, (i,)) for u in units for i in range(len(u.blocks))]
        _judge_regions(judge, goal, singles, out, threshold)
        return out
    regions = [(u, w) for u in units for w in windows(len(u.blocks), size, stride)]
    es = _judge_regions(judge, goal, regions, out, tau)
    if adapt_floor is None:
        return out
    best: dict[int, tuple[float, tuple[int, ...]]] = {}
    for (unit, window), e in zip(regions, es, strict=True):
        if e > best.get(id(unit), (-1.0, ()))[0]:
            best[id(unit)] = (e, window)
    pending = [(u, best[id(u)][1]) for u in units if id(u) in best and adapt_floor <= best[id(u)][0] < tau]
    for _ in range(EXTRA_PAGES):
        grown = [(u, grow(w, len(u.blocks), stride)) for u, w in pending]
        grown = [(u, g) for (u, w), (_, g) in zip(pending, grown, strict=True) if len(g) > len(w)]  # nothing new: stop
        if not grown:
            break
        es = _judge_regions(judge, goal, grown, out, tau)
        pending = [(u, w) for (u, w), e in zip(grown, es, strict=True) if e < tau]  # supported: stop
    return out


def localize(
    judge: Judge,
    sub_questions: Sequence[str],
    units: Sequence[Unit],
    *,
    batch_units: int = BATCH_UNITS,
    size: int = 4,
    stride: int = 2,
    adapt_floor: float | None = 0.3,
    threshold: float | None = None,
) -> Localization:
    """Localize evidence for up to 6 sub-questions over candidate units, in batches of 10 units.

    ``threshold`` switches to the plain per-block selector of localize_batch (SPEC 4's rules otherwise).
    """
    if len(units) > MAX_UNITS_PER_REQUEST:
        raise ValueError(f"at most {MAX_UNITS_PER_REQUEST} units per request, got {len(units)}")
    out = Localization()
    for goal in list(dict.fromkeys(sub_questions))[:MAX_SUB_QUESTIONS]:
        for i in range(0, len(units), batch_units):
            part = localize_batch(
                judge,
                goal,
                units[i : i + batch_units],
                size=size,
                stride=stride,
                adapt_floor=adapt_floor,
                threshold=threshold,
            )
            for span in part.spans:
                _add(
                    out,
                    Block(span.docid, span.start, span.end, span.quote, span.kind, page=span.page),
                    span.probability,
                    span.choice_probability,
                    goal,
                )
            out.judgments.extend(part.judgments)
    return out
