"""The embedder keeps short texts' vectors per process: a repeated sentence is not run through the model again."""

import numpy as np
import pytest

from evidence.encode.embedding import Embedder


@pytest.fixture()
def embedder() -> Embedder:
    return Embedder(threads=2, batch_size=4)


def counting(embedder: Embedder, monkeypatch) -> list[int]:
    rows: list[int] = []
    real = embedder._run

    def run(batch_ids):
        rows.append(len(batch_ids))
        return real(batch_ids)

    monkeypatch.setattr(embedder, "_run", run)
    return rows


def test_repeated_sentences_come_from_the_cache(embedder: Embedder, monkeypatch) -> None:
    rows = counting(embedder, monkeypatch)
    first = embedder.embed(["Caffeine delays sleep.", "Adenosine builds up.", "Caffeine delays sleep."])
    assert sum(rows) == 3 and np.array_equal(first[0], first[2])
    second = embedder.embed(["Adenosine builds up.", "Melatonin rises at night.", "Caffeine delays sleep."])
    assert sum(rows) == 4  # only the new sentence ran
    assert np.array_equal(second[0], first[1]) and np.array_equal(second[2], first[0])
    np.testing.assert_allclose(np.linalg.norm(second, axis=1), 1.0, atol=1e-5)
    assert embedder.embed(["Adenosine builds up."]).shape == (1, 384) and sum(rows) == 4


def test_long_texts_and_a_full_cache(embedder: Embedder, monkeypatch) -> None:
    rows = counting(embedder, monkeypatch)
    passage = "Caffeine blocks adenosine receptors. " * 40  # a passage: not kept
    embedder.embed([passage])
    embedder.embed([passage])
    assert sum(rows) == 2
    embedder.cache_entries = 2
    embedder.embed(["one", "two", "three"])
    assert list(embedder._cache) == ["two", "three"]  # least recently used out
    embedder.cache_entries = 0  # off: every call runs the model
    embedder.embed(["two"])
    assert sum(rows) == 6
