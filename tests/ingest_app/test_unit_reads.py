"""Question reads fetch only the hit passages and the regions inside them, vectors in binary, and give exactly
the units (blocks, vectors) the former whole-document reads gave."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evidence.agent.core import units as units_module
from evidence.agent.core.units import decode_vector, load_document_units, load_units, load_units_by_ref, unit_ref
from evidence.encode import embedding
from evidence.models import Document, Passage, Region
from evidence.retrieval.types import Hit
from tests.ingest_app.test_vectors import CountingEmbed
from tests.ingesting import ingest_now

WORDS = ["adenosine", "receptor", "caffeine", "sleep", "onset", "latency", "cortisol", "melatonin", "circadian",
         "phase", "dose", "response"]  # fmt: skip


def paper(seed: int, paragraphs: int = 9) -> bytes:
    """A markdown note of several ~110-word paragraphs: several passages, dozens of sentences."""
    rng = np.random.default_rng(seed)
    body = []
    for p in range(paragraphs):
        sentences = [" ".join(rng.choice(WORDS, size=int(rng.integers(6, 14)))).capitalize() + "." for _ in range(10)]
        body.append(f"## Section {p}\n\n" + " ".join(sentences))
    return (f"# Paper {seed}\n\n" + "\n\n".join(body) + "\n").encode()


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


@pytest.fixture
def fake_model(monkeypatch):
    fake = CountingEmbed()
    monkeypatch.setattr(embedding, "_embedder", SimpleNamespace(embed=fake, model_id=embedding.MODEL_ID))
    return fake


def reference_blocks(collection_id: int, docid: str, start: int, end: int, kind: str) -> list[tuple]:
    """The regions of one kind overlapping [start, end), read through the ORM (pgvector text) as before."""
    document = Document.objects.get(collection_id=collection_id, docid=docid)
    regions = Region.objects.filter(document=document, kind=kind).order_by("ordinal")
    return [(r.start, r.end, document.text[r.start : r.end], r.kind, r.label, r.page, r.ordinal,
             None if r.embedding is None else np.asarray(r.embedding, dtype=np.float32))
            for r in regions if r.start < end and r.end > start]  # fmt: skip


def block_tuples(unit) -> list[tuple]:
    return [(b.start, b.end, b.text, b.kind, b.label, b.page, b.position, b.vector) for b in unit.blocks]


def assert_same_blocks(got: list[tuple], expected: list[tuple]) -> None:
    assert [g[:7] for g in got] == [e[:7] for e in expected]
    for g, e in zip(got, expected, strict=True):
        assert g[7] is not None and e[7] is not None
        assert g[7].dtype == np.float32 and np.array_equal(g[7], e[7])  # bit for bit, not just close


@pytest.mark.django_db
def test_binary_vectors_equal_the_text_ones(collection, fake_model):
    ingest_now(collection, [("a.md", paper(1))])
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, vector_send(embedding) FROM evidence_passage WHERE embedding IS NOT NULL")
        binary = dict(cursor.fetchall())
    assert binary
    for passage in Passage.objects.filter(pk__in=binary):
        assert np.array_equal(decode_vector(binary[passage.pk]), np.asarray(passage.embedding, dtype=np.float32))
    assert decode_vector(None) is None


@pytest.mark.django_db
def test_units_hold_the_hit_passage_and_only_its_regions(collection, fake_model):
    ingest_now(collection, [("a.md", paper(1)), ("b.md", paper(2)), ("c.md", paper(3))])
    docids = list(Document.objects.filter(collection=collection).order_by("pk").values_list("docid", flat=True))
    assert Passage.objects.filter(document__docid=docids[0]).count() >= 3
    hits = [Hit(docids[0], 2.0, 2), Hit("missing", 1.5, 0), Hit(docids[1], 1.0, None), Hit(docids[2], 0.5, 1),
            Hit(docids[0], 0.25, 0)]  # fmt: skip
    with CaptureQueriesContext(connection) as reads:
        units = load_units(collection.pk, hits)
    read_sql = [q["sql"] for q in reads.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(read_sql) == 4  # documents, hit passages, first passages, regions: not one per hit
    assert [(u.docid, u.rank, u.score) for u in units] == [(docids[0], 1, 2.0), (docids[1], 3, 1.0),
                                                          (docids[2], 4, 0.5), (docids[0], 5, 0.25)]  # fmt: skip
    filled = Region.objects.filter(document__collection=collection, kind="sentence").exclude(embedding=None)
    for unit, (docid, ordinal) in zip(units, [(docids[0], 2), (docids[1], 0), (docids[2], 1), (docids[0], 0)],
                                      strict=True):  # fmt: skip
        passage = Passage.objects.get(document__docid=docid, ordinal=ordinal)
        assert np.array_equal(unit.vector, np.asarray(passage.embedding, dtype=np.float32))
        assert_same_blocks(block_tuples(unit), reference_blocks(collection.pk, docid, passage.start, passage.end,
                                                                "sentence"))  # fmt: skip
    # sentence vectors were made for the judged regions only, and once
    judged = {(u.docid, b.start) for u in units for b in u.blocks}
    assert {(r.document.docid, r.start) for r in filled.select_related("document")} == judged
    assert len(fake_model.texts) == Passage.objects.filter(document__collection=collection).count() + len(judged)


@pytest.mark.django_db
def test_units_by_ref_and_whole_documents_read_the_same_blocks(collection, fake_model):
    ingest_now(collection, [("a.md", paper(4)), ("b.md", paper(5))])
    docids = list(Document.objects.filter(collection=collection).order_by("pk").values_list("docid", flat=True))
    units = load_units(collection.pk, [Hit(docids[0], 1.0, 1), Hit(docids[1], 0.5, 0)])
    asked = len(fake_model.texts)
    with CaptureQueriesContext(connection) as reads:
        again = load_units_by_ref(collection.pk, [unit_ref(u) for u in units] + [(docids[1], 0, 40, None, None)])
    assert len(reads.captured_queries) == 3  # documents, regions, passages
    assert len(again) == 3 and len(fake_model.texts) == asked  # passage 0 of b was read: nothing to embed
    for before, after in zip(units, again, strict=False):
        assert_same_blocks(block_tuples(after), block_tuples(before))
        assert np.array_equal(after.vector, before.vector) and (after.score, after.rank) == (before.score, before.rank)
    first = Passage.objects.get(document__docid=docids[1], ordinal=0)
    assert np.array_equal(again[2].vector, np.asarray(first.embedding, dtype=np.float32))

    with CaptureQueriesContext(connection) as reads:
        whole = load_document_units(collection.pk, [docids[1], "missing", docids[0]], "sentence")
    assert len(reads.captured_queries) == 2
    assert [u.docid for u in whole] == [docids[1], docids[0]]
    for unit in whole:
        expected = reference_blocks(collection.pk, unit.docid, 0, 10**9, "sentence")
        assert [b[:7] for b in block_tuples(unit)] == [e[:7] for e in expected]
        for b, e in zip(block_tuples(unit), expected, strict=True):
            assert (b[7] is None and e[7] is None) or np.array_equal(b[7], e[7])


@pytest.mark.django_db
def test_a_document_without_regions_is_one_passage_block(collection, fake_model):
    ingest_now(collection, [("a.md", paper(6, paragraphs=2))])
    document = Document.objects.get(collection=collection)
    Region.objects.filter(document=document).delete()
    [unit] = load_units(collection.pk, [Hit(document.docid, 1.0, 0)])
    passage = Passage.objects.get(document=document, ordinal=0)
    assert [(b.start, b.end, b.kind) for b in unit.blocks] == [(passage.start, passage.end, "paragraph")]
    assert units_module.regions_in_windows("sentence", []) == []


def test_a_whole_paper_read_with_vectors_stores_them_once(collection, fake_model):
    ingest_now(collection, [("a.md", paper(4))])
    sentences = Region.objects.filter(document__collection=collection, kind="sentence")
    assert sentences.filter(embedding__isnull=True).exists()  # sentence vectors are made when first read
    embedded = len(fake_model.texts)
    docid = Document.objects.get(collection=collection).docid
    (whole,) = load_document_units(collection.pk, [docid], "sentence", with_vectors=True)
    assert all(block.vector is not None for block in whole.blocks)
    assert not sentences.filter(embedding__isnull=True).exists()
    first = len(fake_model.texts) - embedded
    assert first == sentences.count()
    load_document_units(collection.pk, [whole.docid], "sentence", with_vectors=True)
    assert len(fake_model.texts) - embedded == first  # the second read embeds nothing
