"""Value types shared by the retrieval engine and its callers."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked unit: a document id, its score, and the ordinal of its best passage when relevant."""

    docid: str
    score: float
    passage: int | None = None
