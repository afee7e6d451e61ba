"""The one rule for tests that read the real data in ../shared/data: skipped on a plain clone, failed under CI.

A user's clone has no ../shared, so `make test` reports those tests as skipped, with the folder they need; CI
(`CI=true`, as `.ci/run` sets it) must have the data, so there a missing folder fails the test instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def in_ci(environ: Mapping[str, str]) -> bool:
    """Tell whether the environment says this is CI (CI=true, as CI services and `.ci/run` set it)."""
    return environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing_data(path: Path, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """None when `path` exists; else what to do about it ("skip" or "fail") and the reason to report."""
    if path.exists():
        return None
    if in_ci(environ):
        return "fail", f"{path} is missing, and CI=true needs the real data in ../shared/data"
    return "skip", f"needs the real data at {path} (../shared/data, which a plain clone has not)"


def require(path: Path = SHARED_DATA, environ: Mapping[str, str] | None = None) -> Path:
    """Return `path`, or skip the test (fail it under CI) when it is missing."""
    outcome = missing_data(path, os.environ if environ is None else environ)
    if outcome is None:
        return path
    action, reason = outcome
    if action == "fail":
        pytest.fail(reason)
    pytest.skip(reason)
