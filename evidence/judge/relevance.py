"""Relevance assessment for ranking (JevGPT 3.3, eq. 7, appendix A.1) as a pure function over a Judge.

Candidates are read in retrieval order, 20 new ones at a time: a Score over 4 grades per unit gives
p_d = P(2) + P(3); after each 20 a Noul decides whether reading on can still find relevant documents
(go on when >= 0.5). Returned: R = {d judged : p_d >= 0.25} plus the documents not yet judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .types import Judge, NoulQuestion, ScoreAnswer, ScoreQuestion, Unit

THETA = 0.25
CONTINUE_EVERY = 20
CONTINUE_MIN = 0.5


@dataclass
class Relevance:
    """What relevance assessment found: p_d per judged unit, the kept set, and the continue decisions."""

    judged: dict[str, ScoreAnswer] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # retrieval order of every candidate
    kept: list[str] = field(default_factory=list)  # R: judged with p_d >= theta, then the unjudged
    unjudged: list[str] = field(default_factory=list)
    continue_probabilities: list[float] = field(default_factory=list)

    def p(self, docid: str) -> float | None:
        """Return p_d of a judged unit, None when it was not judged."""
        answer = self.judged.get(docid)
        return None if answer is None else answer.p_relevant

    def ranking(self) -> list[str]:
        """Return every candidate: judged by p_d (retrieval order on ties), then the unjudged in retrieval order."""
        pos = {d: i for i, d in enumerate(self.order)}
        judged = sorted(self.judged, key=lambda d: (-self.judged[d].p_relevant, pos[d]))
        return judged + self.unjudged


def assess_relevance(
    judge: Judge,
    topic: str,
    units: Sequence[Unit],
    *,
    theta: float = THETA,
    every: int = CONTINUE_EVERY,
    continue_min: float = CONTINUE_MIN,
    limit: int | None = None,
) -> Relevance:
    """Grade ranked units in steps of `every`, asking after each step whether to read on."""
    out = Relevance(order=[u.docid for u in units])
    peers = tuple(units)  # the whole candidate list is the local judge's context for every step
    stop = len(units) if limit is None else min(limit, len(units))
    i = 0
    while i < stop:
        step = units[i : min(i + every, stop)]
        answers = judge.score([ScoreQuestion(topic, u, peers=peers) for u in step])
        for u, a in zip(step, answers, strict=True):
            out.judged[u.docid] = a
        i += len(step)
        if i >= stop:
            break
        recent = tuple(a.p_relevant for a in answers)
        statement = f"Reading the next {every} candidates for '{topic}' will find another relevant document."
        go_on = judge.noul([NoulQuestion(topic, kind="continue", statement=statement, recent=recent)])[0]
        out.continue_probabilities.append(go_on)
        if go_on < continue_min:
            break
    out.unjudged = [u.docid for u in units if u.docid not in out.judged]
    out.kept = [d for d in out.order if d in out.judged and out.judged[d].p_relevant >= theta] + out.unjudged
    return out
