"""The BM25 index in Postgres: appended segments, one version sequence, merges, per-process caches by version."""

from __future__ import annotations

import numpy as np
import pytest

from evidence.models import Collection, Document, IndexSegment, Passage
from evidence.retrieval import index_store


def add_doc(collection: Collection, n: int) -> Document:
    text = f"Paper {n} about topic{n % 7} and caffeine number {n}. " + "adenosine " * (n % 5)
    document = Document.objects.create(collection=collection, docid=f"d{n}", title=f"Title {n}",
                                       source_name=f"d{n}.txt", source_format="text", sha256=f"{n:064x}",
                                       text=text)  # fmt: skip
    Passage.objects.create(document=document, ordinal=0, start=0, end=len(text))
    return document


def forget_cache() -> None:
    """Act as another process: nothing held in memory."""
    index_store._cache.clear()


def same_scores(a: index_store.CollectionIndex, b: index_store.CollectionIndex, queries: list[str]) -> None:
    assert a.documents.ids == b.documents.ids and a.passage_docids == b.passage_docids
    for query in queries:
        tokens = a.analyze(query)
        assert np.array_equal(a.documents.scores(tokens), b.documents.scores(tokens))
        assert np.array_equal(a.passages.scores(tokens), b.passages.scores(tokens))
        assert a.hybrid().search(tokens, 20) == b.hybrid().search(tokens, 20)


QUERIES = ["caffeine adenosine", "topic3 paper", "number 17", "nothing-matches"]


@pytest.mark.django_db
def test_files_append_segments_that_merge_and_read_as_one_index(collection):
    versions = [index_store.add_documents(collection.pk, [add_doc(collection, n).pk]) for n in range(20)]
    assert versions == list(range(1, 21))  # one sequence, one version per file
    # 8 one-document segments merge into one: 20 files leave 2 merged segments and 4 single ones.
    segments = list(IndexSegment.objects.filter(collection=collection).order_by("version"))
    assert [(s.first_version, s.version, s.documents) for s in segments] == [
        (1, 8, 8), (9, 16, 8), (17, 17, 1), (18, 18, 1), (19, 19, 1), (20, 20, 1)]  # fmt: skip
    forget_cache()
    loaded = index_store.load(collection.pk)
    assert loaded.version == 20 and loaded.documents.ids == [f"d{n}" for n in range(20)]
    rebuilt = index_store.build_segment(collection, [d.pk for d in Document.objects.order_by("pk")], 20)
    same_scores(loaded, rebuilt, QUERIES)


@pytest.mark.django_db
def test_a_process_behind_fetches_only_the_segments_it_lacks(collection, monkeypatch):
    for n in range(3):
        index_store.add_documents(collection.pk, [add_doc(collection, n).pk])
    forget_cache()
    assert index_store.load(collection.pk).version == 3
    decoded: list[int] = []
    real_decode = index_store.decode

    def counting_decode(data, version):
        decoded.append(version)
        return real_decode(data, version)

    monkeypatch.setattr(index_store, "decode", counting_decode)
    index_store.add_documents(collection.pk, [add_doc(collection, 3).pk])  # another worker's file: cache at 3
    held = index_store.load(collection.pk)
    assert held.version == 4 and decoded == [4]
    assert index_store.load(collection.pk) is held  # version unchanged: nothing read
    assert index_store.add_documents(collection.pk, [d.pk for d in Document.objects.all()]) == 4  # all indexed


@pytest.mark.django_db
def test_an_old_collection_without_segments_is_indexed_on_first_read(collection):
    for n in range(3):
        add_doc(collection, n)
    assert index_store.current_version(collection.pk) is None
    assert index_store.load(collection.pk).documents.ids == ["d0", "d1", "d2"]
    assert index_store.current_version(collection.pk) == 1


@pytest.mark.django_db
def test_deleting_a_collection_removes_its_index(collection):
    index_store.add_documents(collection.pk, [add_doc(collection, 0).pk])
    assert IndexSegment.objects.filter(collection=collection).exists()
    pk = collection.pk
    collection.delete()
    assert not IndexSegment.objects.filter(collection_id=pk).exists()
    with pytest.raises(LookupError):
        index_store.load(pk)
