"""Vectors at ingest (passages only), sentence vectors made on first use by System 1, and re-embedding."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from evidence.agent.core.units import load_units, load_units_by_ref, unit_ref
from evidence.encode import embedding
from evidence.ingest.reembed import reembed_collection, stale_collections
from evidence.models import Collection, Passage, Region
from evidence.retrieval.types import Hit
from tests.ingesting import ingest_now

NOTE = (
    b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors. It delays sleep onset by about an hour. "
    b"Late coffee shortens deep sleep.\n"
)


class CountingEmbed:
    """A stand-in model: a fixed vector per text (by its hash), counting the texts it was given."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts):
        self.texts.extend(texts)
        out = np.stack([np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(384) for t in texts])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


@pytest.fixture
def fake_model(monkeypatch):
    fake = CountingEmbed()
    monkeypatch.setattr(embedding, "_embedder", SimpleNamespace(embed=fake, model_id=embedding.MODEL_ID))
    return fake


@pytest.mark.django_db
def test_it_embeds_passages_at_ingest_and_sentences_when_system_1_reads_them(collection, fake_model):
    ingest_now(collection, [("caffeine.md", NOTE)])
    passages = Passage.objects.filter(document__collection=collection)
    sentences = Region.objects.filter(document__collection=collection, kind="sentence")
    assert passages.exists() and not passages.filter(embedding=None).exists()
    assert sentences.count() == 3 and not sentences.exclude(embedding=None).exists()
    assert len(fake_model.texts) == passages.count()

    units = load_units(collection.pk, [Hit("caffeine", 1.0, 0)])
    texts = [r.document.text[r.start : r.end] for r in sentences.order_by("ordinal")]
    assert [b.text for b in units[0].blocks] == texts
    assert all(b.vector is not None for b in units[0].blocks)
    assert not sentences.filter(embedding=None).exists()  # stored: the next question reads them
    stored = {r.start: np.asarray(r.embedding) for r in sentences}
    for block in units[0].blocks:
        np.testing.assert_allclose(block.vector, stored[block.start], atol=1e-6)
        np.testing.assert_allclose(block.vector, fake_model([block.text])[0], atol=1e-6)

    asked = len(fake_model.texts)
    again = load_units_by_ref(collection.pk, [unit_ref(units[0])])
    assert len(fake_model.texts) == asked  # nothing embedded twice
    assert [b.text for b in again[0].blocks] == [b.text for b in units[0].blocks]


@pytest.mark.django_db
def test_reembed_renews_an_old_models_collection(collection, fake_model):
    ingest_now(collection, [("caffeine.md", NOTE)])
    assert stale_collections() == []  # a new collection is made with the current model
    load_units(collection.pk, [Hit("caffeine", 1.0, 0)])  # sentence vectors stored with the old model
    Collection.objects.filter(pk=collection.pk).update(embedding_model=embedding.LEGACY_MODEL_ID)
    collection.refresh_from_db()
    assert stale_collections() == [collection]
    Passage.objects.filter(document__collection=collection).update(embedding=[0.0] * 383 + [1.0])

    newer = CountingEmbed()
    count = reembed_collection(collection, embed=newer)
    passages = Passage.objects.filter(document__collection=collection)
    assert count == passages.count() == len(newer.texts)
    for passage in passages.select_related("document"):
        text = f"{passage.document.title}\n{passage.document.text[passage.start : passage.end]}"
        np.testing.assert_allclose(np.asarray(passage.embedding), newer([text])[0], atol=1e-6)
    assert not Region.objects.filter(document__collection=collection).exclude(embedding=None).exists()
    collection.refresh_from_db()
    assert collection.embedding_model == embedding.MODEL_ID and stale_collections() == []


def test_a_worker_tells_its_pool_processes_how_many_share_the_cores(monkeypatch):
    from researchapp.celery import share_cores_between_pool_processes

    monkeypatch.delenv("EVIDENCE_WORKER_PROCESSES", raising=False)
    share_cores_between_pool_processes(sender=SimpleNamespace(concurrency=2))
    import os

    assert os.environ["EVIDENCE_WORKER_PROCESSES"] == "2"


@pytest.mark.django_db
def test_the_reembed_command_renews_only_stale_collections(collection, user, fake_model):
    import io
    import json

    from django.core.management import call_command

    ingest_now(collection, [("caffeine.md", NOTE)])
    current = Collection.objects.create(owner=user, name="Current")
    Collection.objects.filter(pk=collection.pk).update(embedding_model=embedding.LEGACY_MODEL_ID)
    out = io.StringIO()
    call_command("reembed", stdout=out, stderr=io.StringIO())
    summary = json.loads(out.getvalue())["reembedded"]
    assert [(s["collection"], s["from"], s["to"]) for s in summary] == [
        (collection.name, embedding.LEGACY_MODEL_ID, embedding.MODEL_ID)]  # fmt: skip
    assert summary[0]["passages"] == Passage.objects.filter(document__collection=collection).count()
    assert Collection.objects.get(pk=current.pk).embedding_model == embedding.MODEL_ID
