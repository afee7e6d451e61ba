"""Fixtures of the evaluation app tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def qasper_fixture(shared_data, tmp_path) -> Path:
    """The official schema fixture with its four questions given distinct ids (it repeats one id four times,
    which the official evaluator, and so ours, counts as one question)."""
    raw = json.loads((shared_data / "qasper" / "qasper-schema-fixture.json").read_text())
    for paper in raw.values():
        for n, qa in enumerate(paper["qas"]):
            qa["question_id"] = f"{qa['question_id']}-{n}"
    path = tmp_path / "qasper-fixture-distinct-ids.json"
    path.write_text(json.dumps(raw))
    return path
