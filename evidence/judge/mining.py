"""Evidence mining (JevGPT 3.3, eqs. 8-9, appendix A.1): rank leads among the top K units after a search.

QA: the question is split into at most 6 clues; a unit d holding clues L(d) gets priority
s(d) = sum over j in L(d) of 1/n_j (n_j = units of the batch holding clue j); keep s >= 0.5, at most
m = 3, and when none reaches 0.5 the single best unit with at least one clue. Ranking: s(d) = p_d,
keep p_d >= 0.5 among fully judged, not yet delivered units, at most m = 10. The research loop runs this
in the background (agent/systems/background.py) and starts a batch only with >= 45 s left before the submit steer.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from .localize import EvidenceSpan, localize_batch
from .relevance import assess_relevance
from .types import Judge, Unit

K_MINING = 60
MAX_CLUES = 6
TAU_LEAD = 0.5
M_QA = 3
M_RANKING = 10
MIN_SECONDS_BEFORE_STEER = 45.0
_SPLIT = re.compile(r"\s*(?:[;,:?!]|\.(?=\s|$)|\b(?:and|but|while|whereas|which|who|whose|that|where|when)\b)\s*", re.I)
_MIN_CLUE_WORDS = 2


@dataclass(frozen=True)
class Lead:
    """A mined lead: the unit, its priority, the clues it holds and its raw excerpts."""

    docid: str
    priority: float
    clues: tuple[str, ...]
    spans: tuple[EvidenceSpan, ...] = ()


def can_start_batch(seconds_to_steer: float) -> bool:
    """Tell whether a new mining batch may start (at least 45 s before the submit steer)."""
    return seconds_to_steer >= MIN_SECONDS_BEFORE_STEER


def split_clues(question: str, max_clues: int = MAX_CLUES) -> list[str]:
    """Split a question into at most 6 clause-like clues of two or more words, longest first on overflow."""
    parts = [p.strip(" .") for p in _SPLIT.split(question) if p and p.strip(" .")]
    clues = [p for p in parts if len(p.split()) >= _MIN_CLUE_WORDS] or [question.strip()]
    if len(clues) > max_clues:
        keep = set(sorted(range(len(clues)), key=lambda i: -len(clues[i]))[:max_clues])
        clues = [c for i, c in enumerate(clues) if i in keep]
    return clues


def priorities(hits: Mapping[str, Collection[int]]) -> dict[str, float]:
    """Return s(d) = sum over clues j found in d of 1/n_j, n_j the number of units holding clue j."""
    n: dict[int, int] = {}
    for found in hits.values():
        for j in set(found):
            n[j] = n.get(j, 0) + 1
    return {d: sum(1.0 / n[j] for j in set(found)) for d, found in hits.items()}


def pick_leads(scores: Mapping[str, float], eligible: Collection[str], tau: float, m: int, fallback: bool) -> list[str]:
    """Return Top_m of the eligible units with s >= tau; optionally the best eligible one when none passes."""
    ranked = sorted((d for d in eligible if d in scores), key=lambda d: (-scores[d], d))
    chosen = [d for d in ranked if scores[d] >= tau][:m]
    if not chosen and fallback and ranked and scores[ranked[0]] > 0:
        chosen = ranked[:1]
    return chosen


def mine_qa(
    judge: Judge,
    question: str,
    units: Sequence[Unit],
    *,
    judged: Collection[str] = (),
    clues: Sequence[str] | None = None,
    k: int = K_MINING,
    tau: float = TAU_LEAD,
    m: int = M_QA,
) -> list[Lead]:
    """Locate each clue in the top K not-yet-judged units and return the leads by priority."""
    batch = [u for u in units if u.docid not in set(judged)][:k]
    clue_list = list(clues) if clues is not None else split_clues(question)
    found: dict[str, set[int]] = {u.docid: set() for u in batch}
    spans: dict[str, list[EvidenceSpan]] = {u.docid: [] for u in batch}
    for j, clue in enumerate(clue_list[:MAX_CLUES]):
        for i in range(0, len(batch), 10):
            for span in localize_batch(judge, clue, batch[i : i + 10], adapt_floor=None).spans:
                found[span.docid].add(j)
                spans[span.docid].append(span)
    hits = {d: f for d, f in found.items() if f}
    scores = priorities(hits)
    chosen = pick_leads(scores, list(hits), tau, m, fallback=True)
    return [Lead(d, scores[d], tuple(clue_list[j] for j in sorted(hits[d])), tuple(spans[d])) for d in chosen]


def mine_ranking(
    judge: Judge,
    topic: str,
    units: Sequence[Unit],
    *,
    judged: Collection[str] = (),
    delivered: Collection[str] = (),
    k: int = K_MINING,
    tau: float = TAU_LEAD,
    m: int = M_RANKING,
) -> list[Lead]:
    """Grade the top K not-yet-judged units and return up to 10 undelivered ones with p_d >= 0.5."""
    batch = [u for u in units if u.docid not in set(judged)][:k]
    result = assess_relevance(judge, topic, batch, every=len(batch) or 1)
    scores = {d: a.p_relevant for d, a in result.judged.items()}
    eligible = [d for d in result.judged if d not in set(delivered)]
    return [Lead(d, scores[d], ()) for d in pick_leads(scores, eligible, tau, m, fallback=False)]
