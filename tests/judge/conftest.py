"""Shared helpers for the judge tests: hand-built units and a fake Judge with scripted probabilities."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # fake_*.py servers import as plain modules

from evidence.judge.types import (
    Block,
    ChoiceAnswer,
    ChoiceQuestion,
    NoulQuestion,
    ScoreAnswer,
    ScoreQuestion,
    Unit,
)


def fake_embed(texts: Sequence[str]) -> np.ndarray:
    """Embed by hashed bag of words (no ONNX model in unit tests)."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in text.lower().split():
            out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 384] += 1.0
        out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
    return out


def make_unit(docid: str, sentences: Sequence[str], score: float | None = None, rank: int | None = None) -> Unit:
    """Build a unit whose text is the sentences joined by one space, with exact block offsets."""
    blocks, pos = [], 0
    for i, s in enumerate(sentences):
        blocks.append(Block(docid, pos, pos + len(s), s, position=i))
        pos += len(s) + 1
    return Unit(docid, f"title {docid}", tuple(blocks), score, rank)


class ScriptedJudge:
    """A Judge whose block probabilities are given per (goal, docid, block position)."""

    name = "scripted"

    def __init__(self, block_p: dict[tuple[str, str, int], float], unit_p: dict[str, float] | None = None) -> None:
        self.block_p = block_p
        self.unit_p = unit_p or {}
        self.calls: list[tuple[str, int]] = []

    def _p(self, goal: str, block: Block) -> float:
        return self.block_p.get((goal, block.docid, block.position), 0.0)

    def noul(self, questions: Sequence[NoulQuestion]) -> list[float]:
        self.calls.append(("noul", len(questions)))
        out = []
        for q in questions:
            if q.kind == "continue":
                out.append(max(q.recent, default=0.0))
            else:
                out.append(max((self._p(q.goal, b) for b in q.blocks()), default=0.0))
        return out

    def choice(self, questions: Sequence[ChoiceQuestion]) -> list[ChoiceAnswer]:
        self.calls.append(("choice", len(questions)))
        return [
            ChoiceAnswer.from_probabilities({k: self._p(q.goal, b) for k, b in q.options.items()})  # type: ignore[arg-type]
            for q in questions
        ]

    def score(self, questions: Sequence[ScoreQuestion]) -> list[ScoreAnswer]:
        self.calls.append(("score", len(questions)))
        out = []
        for q in questions:
            p = self.unit_p.get(q.unit.docid, 0.0)
            out.append(ScoreAnswer((1 - p, 0.0, p, 0.0)))
        return out


@pytest.fixture
def scripted() -> type[ScriptedJudge]:
    return ScriptedJudge
