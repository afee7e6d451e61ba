"""The plain span selector the baselines use instead of System 1: cosine plus lexical overlap, uncalibrated."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...judge import Block, EvidenceSpan, Unit
from ...retrieval import get_analyzer

ANALYZE = get_analyzer("english")


def heuristic_spans(question: str, units: list[Unit], top: int = 3) -> list[EvidenceSpan]:
    """Score every block by 0.7 * cosine + 0.3 * share of question terms it contains; keep the best few."""
    blocks = [block for unit in units for block in unit.blocks]
    if not blocks:
        return []
    cosines = question_cosines(question, blocks)
    terms = set(ANALYZE(question))
    overlap = np.array([len(terms & set(ANALYZE(block.text))) / max(1, len(terms)) for block in blocks])
    scores = np.clip(0.7 * cosines + 0.3 * overlap, 0.0, 1.0)
    order = np.argsort(-scores, kind="stable")[:top]
    return [
        EvidenceSpan(
            blocks[i].docid,
            blocks[i].start,
            blocks[i].end,
            blocks[i].text,
            blocks[i].page,
            float(scores[i]),
            1.0,
            question,
            blocks[i].kind,
        )
        for i in order
    ]


def question_cosines(question: str, blocks: Sequence[Block]) -> np.ndarray:
    """Return the MiniLM cosine of the question with each block (stored vectors, the rest embedded now)."""
    from ...encode import get_embedder

    embedder = get_embedder()
    missing = [i for i, block in enumerate(blocks) if block.vector is None]
    fresh = embedder.embed([blocks[i].text for i in missing]) if missing else np.zeros((0, 384), np.float32)
    fresh_row = {block_index: row for row, block_index in enumerate(missing)}
    vectors = np.stack(
        [block.vector if block.vector is not None else fresh[fresh_row[i]] for i, block in enumerate(blocks)]
    )
    return vectors @ embedder.embed([question])[0]
