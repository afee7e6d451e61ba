"""Every span localization returns round-trips: document.text[start:end] == quote (SciFact, QASPER, HotpotQA)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest
from conftest import ScriptedJudge
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.fitting import data
from bench.fitting.devsets import make_unit
from evidence.ingest.types import ParsedDocument
from evidence.judge.localize import localize_batch
from evidence.judge.types import Block, Unit


class PositionJudge(ScriptedJudge):
    """Evidence is exactly the block at one position, in every unit."""

    def __init__(self, position: int) -> None:
        super().__init__({})
        self.position = position

    def _p(self, goal: str, block: Block) -> float:
        return 0.95 if block.position == self.position else 0.0


pytestmark = pytest.mark.usefixtures("shared_data")  # the corpus is ../shared/data's (skipped on a plain clone)


@cache
def corpus() -> tuple[tuple[ParsedDocument, str], ...]:
    """Return SciFact abstracts (sentences), QASPER papers (paragraphs) and HotpotQA paragraphs (sentences)."""
    docs = [(d, "sentence") for d in data.load_scifact_corpus()]
    docs += [(d, "paragraph") for d in data.load_qasper()[0]]
    docs += [(d, "sentence") for d in data.load_hotpotqa()[0]]
    return tuple(docs)


@cache
def all_units() -> list[tuple[ParsedDocument, Unit]]:
    """Return every document of the corpus as a unit (built once)."""
    return units(corpus())


def units(docs: Sequence[tuple[ParsedDocument, str]]) -> list[tuple[ParsedDocument, Unit]]:
    """Build units without embeddings (the scripted judge needs none)."""
    out = []
    for doc, kind in docs:
        n = len(doc.regions_of(kind))
        out.append((doc, make_unit(doc, kind, np.zeros((n, 1), dtype=np.float32), None)))
    return out


def test_every_region_comes_back_as_an_exact_span() -> None:
    pairs = all_units()
    by_id = {u.docid: doc for doc, u in pairs}
    expected = {(u.docid, b.start, b.end) for _, u in pairs for b in u.blocks}
    returned = set()
    for position in range(max(len(u.blocks) for _, u in pairs)):
        todo = [u for _, u in pairs if len(u.blocks) > position]
        for span in localize_batch(PositionJudge(position), "g", todo, adapt_floor=None).spans:
            assert by_id[span.docid].text[span.start : span.end] == span.quote
            returned.add((span.docid, span.start, span.end))
    assert len(expected) > 45_000
    assert returned == expected


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_judgments_only_return_exact_spans(draw: st.DataObject) -> None:
    pairs = all_units()
    picks = draw.draw(st.lists(st.integers(0, len(pairs) - 1), min_size=1, max_size=12, unique=True))
    chosen = [pairs[i] for i in picks]
    p = {("g", u.docid, b.position): draw.draw(st.floats(0, 1)) for _, u in chosen for b in u.blocks}
    spans = localize_batch(ScriptedJudge(p), "g", [u for _, u in chosen]).spans
    texts = {u.docid: doc.text for doc, u in chosen}
    assert all(texts[s.docid][s.start : s.end] == s.quote for s in spans)
