"""Dense search over pgvector (HNSW, cosine): passages ranked by similarity, one hit per document."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.db import connection, transaction

from .types import Hit

# HNSW returns at most ef_search candidates per scan; 1,000 is pgvector's maximum.
MAX_EF_SEARCH = 1000


def vector_literal(vector: Sequence[float] | np.ndarray) -> str:
    return "[" + ",".join(f"{float(x):.7f}" for x in vector) + "]"


def dense_search(collection_id: int, query_vector: np.ndarray, depth: int = 1000) -> list[Hit]:
    """Return up to `depth` documents by their best passage's cosine similarity to the query."""
    literal = vector_literal(query_vector)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL hnsw.ef_search = {min(MAX_EF_SEARCH, max(40, depth))}")
        # The collection filter runs after the index scan: iterative scans keep going until enough rows pass it.
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute(
            """
            SELECT d.docid, p.ordinal, 1 - (p.embedding <=> %s::vector) AS similarity
            FROM evidence_passage p JOIN evidence_document d ON d.id = p.document_id
            WHERE d.collection_id = %s AND p.embedding IS NOT NULL
            ORDER BY p.embedding <=> %s::vector
            LIMIT %s
            """,
            [literal, collection_id, literal, depth * 2],
        )
        rows = cursor.fetchall()
    best: dict[str, Hit] = {}
    for docid, ordinal, similarity in rows:
        if docid not in best or similarity > best[docid].score:
            best[docid] = Hit(docid, float(similarity), int(ordinal))
    # relaxed_order may return rows slightly out of order: sort once here.
    return sorted(best.values(), key=lambda hit: (-hit.score, hit.docid))[:depth]
