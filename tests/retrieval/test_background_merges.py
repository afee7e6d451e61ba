"""Index merges run in a background thread after ingest's append commits: searches meanwhile stay complete, the
version sequence does not move, and the merged index scores as a rebuild does."""

from __future__ import annotations

import threading

import pytest

from evidence.models import Document, IndexSegment
from evidence.retrieval import index_store
from tests.retrieval.test_index_store import QUERIES, add_doc, forget_cache, same_scores

pytestmark = pytest.mark.django_db(transaction=True)


def test_appends_return_before_merging_and_searches_stay_complete(collection, monkeypatch):
    calls: list[str] = []
    real_merge = index_store.merge_segments
    release = threading.Event()

    def slow_merge(collection_id: int) -> int:
        calls.append(threading.current_thread().name)
        release.wait(10)  # hold merges back: appends must not wait for them
        return real_merge(collection_id)

    monkeypatch.setattr(index_store, "merge_segments", slow_merge)
    versions = []
    for n in range(20):
        versions.append(index_store.add_documents(collection.pk, [add_doc(collection, n).pk]))
        forget_cache()  # another process reading now sees every document added so far
        index = index_store.load(collection.pk)
        assert index.version == n + 1 and index.documents.ids == [f"d{i}" for i in range(n + 1)]
    assert versions == list(range(1, 21))
    assert calls and set(calls) == {"index-merges"}  # never on the appending thread
    release.set()
    assert index_store.wait_for_merges(30)
    segments = list(IndexSegment.objects.filter(collection=collection).order_by("version"))
    assert [(s.first_version, s.version, s.documents) for s in segments] == [
        (1, 8, 8), (9, 16, 8), (17, 17, 1), (18, 18, 1), (19, 19, 1), (20, 20, 1)]  # fmt: skip
    forget_cache()
    loaded = index_store.load(collection.pk)
    rebuilt = index_store.build_segment(collection, [d.pk for d in Document.objects.order_by("pk")], 20)
    assert loaded.version == 20
    same_scores(loaded, rebuilt, QUERIES)


def test_a_reader_keeps_its_index_across_a_merge_of_versions_it_holds(collection):
    for n in range(7):
        index_store.add_documents(collection.pk, [add_doc(collection, n).pk])
    assert index_store.wait_for_merges(30)
    held = index_store.load(collection.pk)
    index_store.add_documents(collection.pk, [add_doc(collection, 7).pk])  # the 8th: a merge of 1..8 follows
    assert index_store.wait_for_merges(30)
    assert IndexSegment.objects.filter(collection=collection).count() == 1
    index = index_store.load(collection.pk)
    assert index.version == 8 and index.documents.ids == [f"d{i}" for i in range(8)]
    assert held.documents.ids == [f"d{i}" for i in range(7)]  # a search holding the older index is undisturbed


def test_merges_skipped_earlier_are_caught_up(collection, settings):
    settings.EVIDENCE_BACKGROUND_MERGES = True
    # segments appended with no merge at all (a process that ended first), then one more append
    for n in range(10):
        document = add_doc(collection, n)
        version = n + 1
        segment = index_store.build_segment(collection, [document.pk], version)
        IndexSegment.objects.create(collection=collection, first_version=version, version=version, documents=1,
                                    data=index_store.encode(segment))  # fmt: skip
        Document.objects.filter(pk=document.pk).update(index_version=version)
    index_store.add_documents(collection.pk, [add_doc(collection, 10).pk])
    assert index_store.wait_for_merges(30)
    segments = list(IndexSegment.objects.filter(collection=collection).order_by("version"))
    assert [(s.first_version, s.version) for s in segments] == [(1, 8), (9, 9), (10, 10), (11, 11)]
