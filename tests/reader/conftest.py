"""The agent tests' small library, for runs answered through the reader model."""

from tests.agent.conftest import DOCS, library

__all__ = ["DOCS", "library"]
