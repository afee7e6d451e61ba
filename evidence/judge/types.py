"""System 1 judgment types (SPEC 4): Noul, Choice and Score questions, their answers, the Judge protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

GRADES: tuple[str, ...] = ("0 irrelevant", "1 weak", "2 relevant", "3 highly relevant")


@dataclass(frozen=True, eq=False)
class Block:
    """A judgeable piece of a document; ``document.text[start:end] == text`` always holds."""

    docid: str
    start: int
    end: int
    text: str
    kind: str = "sentence"  # "sentence" | "paragraph" | "passage"
    label: str = ""  # section name (papers) or title (encyclopedia paragraphs)
    page: int | None = None
    position: int = 0  # index among the unit's blocks of the same kind
    vector: np.ndarray | None = None  # stored MiniLM embedding, unit norm

    @property
    def key(self) -> tuple[str, int, int]:
        """Return the identity of the block: (docid, start, end)."""
        return (self.docid, self.start, self.end)


@dataclass(frozen=True, eq=False)
class Unit:
    """A candidate retrieval unit (a document or passage) with its blocks in text order and its retrieval context."""

    docid: str
    title: str
    blocks: tuple[Block, ...]
    score: float | None = None  # retrieval score of the unit (fusion score), higher is better
    rank: int | None = None  # 1-based retrieval rank
    vector: np.ndarray | None = None  # stored passage embedding (title + body)

    @property
    def text(self) -> str:
        """Return the unit's blocks joined by a space (for lexical features and prompts)."""
        return " ".join(b.text for b in self.blocks)


@dataclass(frozen=True, eq=False)
class NoulQuestion:
    """P(statement true); by default the statement is "blocks of unit hold evidence for goal".

    ``window`` selects block indices of the unit (None: the whole unit). kind "continue" asks whether
    reading more candidates will find more relevant documents; ``recent`` then holds the last p_d values.
    """

    goal: str
    unit: Unit | None = None
    window: tuple[int, ...] | None = None
    kind: str = "evidence"  # "evidence" | "continue"
    statement: str = ""
    recent: tuple[float, ...] = ()
    goal_vector: np.ndarray | None = None

    def blocks(self) -> tuple[Block, ...]:
        """Return the blocks the question is about."""
        if self.unit is None:
            return ()
        if self.window is None:
            return self.unit.blocks
        return tuple(self.unit.blocks[i] for i in self.window)


@dataclass(frozen=True, eq=False)
class ChoiceQuestion:
    """A distribution over 2-255 labelled options: blocks of ``unit`` (text blocks) or plain texts."""

    goal: str
    options: Mapping[str, Block | str]
    unit: Unit | None = None
    instructions: str = "Which option holds the evidence for the goal?"
    goal_vector: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not 2 <= len(self.options) <= 255:
            raise ValueError(f"a Choice needs 2-255 options, got {len(self.options)}")


@dataclass(frozen=True, eq=False)
class ScoreQuestion:
    """A distribution over ordered grades of how relevant ``unit`` is to ``goal``."""

    goal: str
    unit: Unit
    grades: tuple[str, ...] = GRADES
    goal_vector: np.ndarray | None = None
    peers: tuple[Unit, ...] = ()  # the whole candidate list, so set-relative features see all of it


@dataclass(frozen=True)
class ChoiceAnswer:
    """The chosen label, the probability of every label, and the top probability as confidence."""

    choice: str
    probabilities: dict[str, float]
    confidence: float

    @classmethod
    def from_probabilities(cls, probabilities: Mapping[str, float]) -> ChoiceAnswer:
        """Normalise probabilities and pick the most probable label (first on ties)."""
        total = sum(max(p, 0.0) for p in probabilities.values())
        n = len(probabilities)
        probs = {k: (max(p, 0.0) / total if total > 0 else 1.0 / n) for k, p in probabilities.items()}
        best = max(probs, key=lambda k: probs[k])
        return cls(best, probs, probs[best])

    def ranked(self) -> list[tuple[str, float]]:
        """Return (label, probability) pairs, most probable first."""
        return sorted(self.probabilities.items(), key=lambda kv: -kv[1])


@dataclass(frozen=True)
class ScoreAnswer:
    """A distribution over ordered grades and its expected grade."""

    probabilities: tuple[float, ...]
    grades: tuple[str, ...] = GRADES
    legend: dict[str, str] = field(default_factory=dict)

    @property
    def expected(self) -> float:
        """Return the expected grade index."""
        return float(sum(i * p for i, p in enumerate(self.probabilities)))

    @property
    def p_relevant(self) -> float:
        """Return p_d = P(2) + P(3), the probability of "relevant" or "highly relevant" (JevGPT 3.3)."""
        return float(sum(self.probabilities[2:]))


@runtime_checkable
class Judge(Protocol):
    """A System 1 provider: every method judges a whole batch in one call and keeps its order."""

    name: str

    def noul(self, questions: Sequence[NoulQuestion]) -> list[float]:
        """Return P(statement true) per question."""
        ...

    def choice(self, questions: Sequence[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Return a distribution over the options per question."""
        ...

    def score(self, questions: Sequence[ScoreQuestion]) -> list[ScoreAnswer]:
        """Return a distribution over the grades per question."""
        ...


class JudgeError(RuntimeError):
    """A provider could not answer (bad key, too many tokens, malformed response)."""
