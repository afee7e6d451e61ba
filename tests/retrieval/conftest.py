"""Fixtures for the retrieval tests: a slice of the real SciFact corpus and claims."""

import json

import pytest

from tests.real_data import SHARED_DATA, require

SCIFACT = SHARED_DATA / "scifact"


def scifact_text(doc: dict) -> str:
    """Return the indexed text of a SciFact document: title and abstract sentences."""
    return doc["title"] + " " + " ".join(doc["abstract"])


@pytest.fixture(scope="session")
def scifact_docs() -> list[dict]:
    """Return the first 400 SciFact documents."""
    with (require(SCIFACT) / "corpus.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for _, line in zip(range(400), f, strict=False)]


@pytest.fixture(scope="session")
def scifact_claims() -> list[str]:
    """Return 50 SciFact train claims."""
    claims = json.loads((require(SCIFACT) / "claims_train.json").read_text(encoding="utf-8"))
    return [c["claim"] for c in claims[:50]]


@pytest.fixture(scope="session")
def corpus(scifact_docs: list[dict]) -> tuple[list[list[str]], list[str]]:
    """Return the 400 documents analyzed with the "lucene" analyzer, and their ids."""
    from evidence.retrieval.analyzer import get_analyzer

    analyze = get_analyzer("lucene")
    return [analyze(scifact_text(d)) for d in scifact_docs], [str(d["doc_id"]) for d in scifact_docs]
