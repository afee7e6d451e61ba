"""Two workers storing files with one stem at once: two documents, never a false duplicate."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from django.db import connection

from evidence.ingest.parsers import parse_file
from evidence.ingest.store import store_documents
from evidence.models import Document

MD = b"# Notes on caffeine\n\nCaffeine blocks adenosine receptors and delays sleep onset.\n"
TXT = b"Notes on walking\n\nOne year of walking increased hippocampal volume in older adults.\n"


def store_in_threads(collection, files: list[tuple[str, bytes]]) -> list:
    """Store each file from its own thread; both plan their docid before either writes (as two workers can)."""
    planned = threading.Barrier(len(files), timeout=30)
    results: list = [None] * len(files)
    errors: list[BaseException] = []

    def embed(texts):
        planned.wait()  # store_documents embeds after planning rows and before writing them
        return np.zeros((len(texts), 384), dtype=np.float32)

    def work(index: int, name: str, data: bytes) -> None:
        try:
            results[index] = store_documents(collection, name, parse_file(name, data), embed)
        except BaseException as error:  # reported by the test below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, name, data)) for i, (name, data) in enumerate(files)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return results


@pytest.mark.django_db(transaction=True)
def test_it_stores_two_files_with_one_stem_as_two_documents(collection):
    results = store_in_threads(collection, [("notes.md", MD), ("notes.txt", TXT)])

    assert [len(r.documents) for r in results] == [1, 1]
    assert [r.duplicates for r in results] == [[], []]
    docids = sorted(Document.objects.filter(collection=collection).values_list("docid", flat=True))
    assert docids == ["notes", "notes-2"]
    assert Document.objects.get(collection=collection, source_name="notes.md").text.startswith("Notes on caffeine")


@pytest.mark.django_db(transaction=True)
def test_the_same_text_stored_twice_at_once_is_one_document_and_one_duplicate(collection):
    results = store_in_threads(collection, [("notes.md", MD), ("copy/notes.md", MD)])

    assert sorted(len(r.documents) for r in results) == [0, 1]
    assert sum(len(r.duplicates) for r in results) == 1
    assert Document.objects.filter(collection=collection).count() == 1
