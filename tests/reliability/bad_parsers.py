"""Parsers that misbehave, for the time-limit tests (module-level so a child process can import them)."""

from __future__ import annotations

import os
import time


def forever(filename: str, data: bytes, limits) -> list:
    """Never return."""
    while True:
        time.sleep(1)


def crash(filename: str, data: bytes, limits) -> list:
    """Die the way a segfaulting C parser does."""
    os.abort()


def hog(filename: str, data: bytes, limits) -> list:
    """Allocate far more memory than a parse may use."""
    chunks = []
    while True:
        chunks.append(bytearray(64 * 1024**2))
