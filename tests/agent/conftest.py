"""Fixtures for the agent tests: the fake OpenAI-compatible server."""

from collections.abc import Iterator

import pytest

from tests.agent.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """Run a scripted OpenAI-compatible server for one test."""
    with FakeOpenAI() as server:
        yield server
