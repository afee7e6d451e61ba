"""SciFact corpus.jsonl: every abstract parses and sentence region i is abstract sentence i."""

from __future__ import annotations

import json
import time
import unicodedata
from pathlib import Path

from evidence.ingest.chunking import make_passages
from evidence.ingest.parsers import detect_format, parse_file

DOCS = 5183
SENTENCES = 45952  # counted from corpus.jsonl: sum of len(abstract) over all lines


def test_it_parses_all_of_scifact(data_dir: Path) -> None:
    path = data_dir / "scifact/corpus.jsonl"
    data = path.read_bytes()
    assert detect_format(path.name, data) == "scifact"
    started = time.perf_counter()
    docs = parse_file(path.name, data)
    elapsed = time.perf_counter() - started
    originals = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    assert len(docs) == len(originals) == DOCS
    assert sum(len(o["abstract"]) for o in originals) == SENTENCES
    total = 0
    for doc, original in zip(docs, originals, strict=True):
        assert doc.docid == str(original["doc_id"])
        assert doc.source_format == "scifact"
        assert doc.text == doc.text.strip()
        sentences = doc.regions_of("sentence")
        assert len(sentences) == len(original["abstract"])
        for region, sentence in zip(sentences, original["abstract"], strict=True):
            # NFC changes exactly one sentence of the corpus; otherwise this is sentence.strip().
            assert doc.text[region.start : region.end] == unicodedata.normalize("NFC", sentence).strip()
        (paragraph,) = doc.regions_of("paragraph")
        assert (paragraph.start, paragraph.end) == (0, len(doc.text))
        assert "dropped_sentences" not in doc.metadata
        total += len(sentences)
    assert total == SENTENCES
    assert elapsed < 10.0


def test_it_chunks_scifact_abstracts(data_dir: Path) -> None:
    lines = (data_dir / "scifact/corpus.jsonl").read_bytes().splitlines()[:300]
    for doc in parse_file("corpus.jsonl", b"\n".join(lines)):
        passages = make_passages(doc)
        for passage in passages:
            quote = doc.text[passage.start : passage.end]
            assert quote and quote == quote.strip()
        if len(doc.text.split()) <= 250:
            assert [(p.start, p.end) for p in passages] == [(0, len(doc.text))]


def test_it_keeps_sentence_indices_when_a_sentence_is_empty() -> None:
    line = {"doc_id": 7, "title": "T", "abstract": ["First one.", "  ", "Third one."], "structured": False}
    (doc,) = parse_file("corpus.jsonl", json.dumps(line).encode())
    assert [doc.text[r.start : r.end] for r in doc.regions_of("sentence")] == ["First one.", "Third one."]
    assert doc.metadata["dropped_sentences"] == [1]
