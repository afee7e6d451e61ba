"""Fixtures for the agent tests: the fake OpenAI-compatible server, and a small library of three documents."""

from collections.abc import Iterator

import pytest

from tests.agent.fake_openai import FakeOpenAI
from tests.ingesting import ingest_now


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """Run a scripted OpenAI-compatible server for one test."""
    with FakeOpenAI() as server:
        yield server


DOCS = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors in the brain. In a laboratory "
    b"study, 400 mg of caffeine taken six hours before bedtime reduced total sleep time by more than one hour.\n\n"
    b"The half-life of caffeine in adults is about five hours.\n",
    "walking.md": b"# Walking and memory\n\nOne year of aerobic walking increased hippocampal volume by two percent "
    b"in older adults. Stretching did not.\n",
    "diet.md": b"# Diet trial\n\nA Mediterranean diet with olive oil reduced cardiovascular events by about 30 "
    b"percent in a trial of 7,447 adults.\n",
}


@pytest.fixture
def library(collection, settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    ingest_now(collection, DOCS.items())
    return collection
