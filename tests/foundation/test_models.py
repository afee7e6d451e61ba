"""The data model's invariants: immutable canonical text, exact spans, gapless event seq, the vector index."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from evidence import streams
from evidence.models import Document, Passage, Span

pytestmark = pytest.mark.django_db


def test_it_refuses_changing_canonical_text(document):
    document.text = document.text + " More."
    with pytest.raises(ValidationError, match="immutable"):
        document.save()


def test_it_allows_changing_metadata(document):
    document.title = "Renamed"
    document.save()
    assert Document.objects.get(pk=document.pk).title == "Renamed"


def test_it_saves_a_span_whose_quote_matches_its_offsets(document):
    quote = "delays sleep onset"
    start = document.text.index(quote)
    span = Span.objects.create(document=document, start=start, end=start + len(quote), quote=quote)
    assert document.text[span.start : span.end] == span.quote
    assert span.matches_source


@pytest.mark.parametrize(("start", "end", "quote"), [(0, 8, "Caffeinx"), (5, 3, ""), (0, 10_000, "x")])
def test_it_refuses_a_span_that_does_not_match(document, start, end, quote):
    with pytest.raises(ValidationError):
        Span.objects.create(document=document, start=start, end=end, quote=quote)
    assert not Span.objects.exists()


def test_it_numbers_events_without_gaps(run):
    seqs = [streams.emit(run.pk, "note", {"i": i}).seq for i in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    assert [event.payload["i"] for event in streams.events_after(run.pk, 2)] == [2, 3, 4]


def test_it_refuses_events_for_missing_runs(db):
    with pytest.raises(ValueError, match="does not exist"):
        streams.emit(999_999, "note", {})


def test_it_uses_the_hnsw_index_for_nearest_passages(document):
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(2000, 384)).astype(np.float32)
    Passage.objects.bulk_create(
        Passage(document=document, ordinal=i, start=0, end=8, embedding=vector)
        for i, vector in enumerate(vectors)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE evidence_passage")
        literal = "[" + ",".join(f"{x:.5f}" for x in vectors[7]) + "]"
        cursor.execute(
            "EXPLAIN SELECT id FROM evidence_passage ORDER BY embedding <=> %s::vector LIMIT 10", [literal]
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute(
            "SELECT ordinal FROM evidence_passage ORDER BY embedding <=> %s::vector LIMIT 1", [literal]
        )
        nearest = cursor.fetchone()[0]
    assert "passage_embedding_hnsw" in plan
    assert nearest == 7
