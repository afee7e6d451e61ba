"""QASPER: every gold evidence paragraph maps to exactly one paragraph region."""

from __future__ import annotations

import json
from pathlib import Path

from evidence.ingest.parsers import parse_file
from evidence.ingest.textnorm import squash


def _evidence(paper: dict) -> list[str]:
    """Return every gold evidence string of a QASPER paper."""
    return [ev for qa in paper["qas"] for answer in qa["answers"] for ev in answer["answer"]["evidence"]]


def test_it_maps_every_text_evidence_paragraph(data_dir: Path) -> None:
    path = data_dir / "qasper/qasper-dev-sample.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    docs = {d.docid: d for d in parse_file(path.name, path.read_bytes())}
    assert set(docs) == set(raw)
    mapped = floats = 0
    for pid, paper in raw.items():
        doc = docs[pid]
        index: dict[str, list[int]] = {}
        for region in doc.regions_of("paragraph"):
            index.setdefault(doc.text[region.start : region.end], []).append(region.start)
        for evidence in _evidence(paper):
            if evidence.startswith("FLOAT SELECTED"):
                floats += 1
                continue
            assert len(index.get(squash(evidence), [])) == 1, evidence[:80]
            mapped += 1
    # Measured on the sample: 100 evidence strings, 6 FLOAT SELECTED, all 94 others (40 distinct) map.
    assert (mapped, floats) == (94, 6)


def test_it_keeps_paragraphs_and_drops_answers(data_dir: Path) -> None:
    path = data_dir / "qasper/qasper-dev-sample.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    for doc in parse_file(path.name, path.read_bytes()):
        paper = raw[doc.docid]
        expected = [
            (section["section_name"].strip(), squash(p))
            for section in paper["full_text"]
            for p in section["paragraphs"]
            if p.strip()
        ]
        got = [(r.label, doc.text[r.start : r.end]) for r in doc.regions_of("paragraph")]
        assert got == expected
        for qa in paper["qas"]:
            assert qa["question"] not in doc.text


def test_it_parses_the_schema_fixture(data_dir: Path) -> None:
    (doc,) = parse_file("fixture.json", (data_dir / "qasper/qasper-schema-fixture.json").read_bytes())
    assert doc.docid == "1909.00694"
    assert doc.title == "Minimally Supervised Learning of Affective Events Using Discourse Relations"
    labels = [r.label for r in doc.regions_of("paragraph")]
    assert labels[0] == "Abstract" and "Proposed Method ::: Polarity Function" in labels
    assert "seed lexicon" in doc.text and "a vocabulary" not in doc.text
