"""Every parser on every real sample: sensible documents with exact offsets."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from evidence.ingest.parsers import detect_format, parse_file
from evidence.ingest.types import ParsedDocument

SAMPLES = [
    ("papers/pdf/N18-3011.pdf", "pdf", 1),
    ("papers/pdf/2020.acl-main.207.pdf", "pdf", 1),
    ("papers/pdf/N18-3011.s2orc.json", "s2orc", 1),
    ("papers/pdf/2020.acl-main.207.s2orc.json", "s2orc", 1),
    ("papers/jats/PMC5828200.nxml", "jats", 1),
    ("papers/jats/PMC6398430.nxml", "jats", 1),
    ("papers/jats/PMC7417471.nxml", "jats", 1),
    ("papers/s2orc_json/20190928_10002293.json", "s2orc", 1),
    ("papers/s2orc_json/20190928_10042064.json", "s2orc", 1),
    ("papers/s2orc_json/20190928_10045593.json", "s2orc", 1),
    ("papers/s2orc_json/20200705_18980380.json", "s2orc", 1),
    ("papers/s2orc_json/20200705_18980463.json", "s2orc", 1),
    ("papers/s2orc_json/20200705_94551546.json", "s2orc", 1),
    ("papers/s2orc_json/20210101_24e6b80e338a4e543de6b49cada07156c9149d22.json", "s2orc", 1),
    ("papers/s2orc_json/20210101_f2235cd28c171f9f3b6a8bcebe246159c464980c.json", "s2orc", 1),
    ("qasper/qasper-dev-sample.json", "qasper", 6),
    ("qasper/qasper-schema-fixture.json", "qasper", 1),
]

# (file, sentence copied from the paper, page it is printed on)
PDF_SENTENCES = [
    (
        "N18-3011.pdf",
        "The resulting literature graph consists of more than 280M nodes, representing papers, authors, "
        "entities and various interactions between them (e.g., authorships, citations, entity mentions).",
        1,
    ),
    (
        "N18-3011.pdf",
        "We deterministically remove duplicate papers based on string similarity of their metadata, "
        "resulting in 37M unique paper nodes.",
        2,
    ),
    (
        "2020.acl-main.207.pdf",
        "Recent Transformer language models like BERT learn powerful textual representations, but these "
        "models are targeted towards token- and sentence-level training objectives and do not leverage "
        "information on inter-document relatedness, which limits their document-level representation power.",
        1,
    ),
    (
        "2020.acl-main.207.pdf",
        "We use SciBERT as our model initialization as it is optimized for scientific text, though our "
        "formulation is general and any Transformer language model instead of SciBERT.",
        3,
    ),
]


def _parse(path: Path) -> list[ParsedDocument]:
    """Parse a real sample file from its bytes."""
    return parse_file(path.name, path.read_bytes())


@pytest.mark.parametrize(("relpath", "fmt", "count"), SAMPLES)
def test_it_parses_sample(
    data_dir: Path, relpath: str, fmt: str, count: int, check_document: Callable[[ParsedDocument], None]
) -> None:
    path = data_dir / relpath
    assert detect_format(path.name, path.read_bytes()) == fmt
    docs = _parse(path)
    assert len(docs) == count
    for doc in docs:
        assert doc.source_format == fmt
        assert len(doc.text) > (200 if "fixture" in relpath else 5000)
        assert len(doc.title) >= 5
        check_document(doc)
        if fmt != "pdf":
            assert doc.docid


def test_it_reads_ids_and_titles(data_dir: Path) -> None:
    jats = _parse(data_dir / "papers/jats/PMC5828200.nxml")[0]
    assert jats.docid == "PMC5828200"
    assert jats.title.startswith("Curcuminoid submicron particle ameliorates cognitive deficits")
    assert jats.metadata["pmid"] == "29535835"
    pdf = _parse(data_dir / "papers/pdf/N18-3011.pdf")[0]
    assert pdf.title == "Construction of the Literature Graph in Semantic Scholar"
    s2orc = _parse(data_dir / "papers/s2orc_json/20190928_10002293.json")[0]
    assert s2orc.docid == "10002293"
    assert s2orc.title.startswith("Antimicrobial Photodynamic Therapy")
    abstract = [r for r in s2orc.regions_of("paragraph") if r.label == "Abstract"]
    assert abstract and abstract[0].start == min(r.start for r in s2orc.regions_of("paragraph"))


def test_it_labels_sections(data_dir: Path) -> None:
    doc = _parse(data_dir / "papers/pdf/N18-3011.s2orc.json")[0]
    labels = {r.label for r in doc.regions_of("paragraph")}
    assert {"Abstract", "Introduction"} <= labels
    headings = [doc.text[r.start : r.end] for r in doc.regions_of("section")]
    assert headings[:2] == ["Abstract", "Introduction"]


@pytest.mark.parametrize(("name", "sentence", "page"), PDF_SENTENCES)
def test_it_finds_known_pdf_sentence(data_dir: Path, name: str, sentence: str, page: int) -> None:
    doc = _parse(data_dir / "papers/pdf" / name)[0]
    assert sentence in doc.text
    found = [r for r in doc.regions_of("sentence") if doc.text[r.start : r.end] == sentence]
    assert len(found) == 1
    assert found[0].page == page
    pdf_page = doc.pages[page - 1]
    assert pdf_page.start <= found[0].start < found[0].end <= pdf_page.end


def test_it_normalises_pdf_text(data_dir: Path) -> None:
    doc = _parse(data_dir / "papers/pdf/2020.acl-main.207.pdf")[0]
    assert len(doc.pages) == 13
    assert "\ufffe" not in doc.text and "  " not in doc.text
    assert "Citation-informed Transformers" in doc.text  # a real compound keeps its hyphen
    assert "SciBERT" in doc.text and "SciB-ERT" not in doc.text  # a split word loses it
    assert doc.pages[0].start == 0 and doc.pages[-1].end == len(doc.text)
    for before, after in zip(doc.pages, doc.pages[1:], strict=False):
        assert doc.text[before.end : after.start] == "\n\n"


@pytest.mark.parametrize("name", ["N18-3011.pdf", "2020.acl-main.207.pdf"])
def test_it_parses_pdf_quickly(data_dir: Path, name: str) -> None:
    started = time.perf_counter()
    _parse(data_dir / "papers/pdf" / name)
    assert time.perf_counter() - started < 2.0
