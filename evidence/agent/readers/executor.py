"""Where System 1's batches can run besides here: the Celery worker registers its tasks at import.

The agent asks for a remote runner by name and falls back to running the batch inline when there is none (a
CLI run, a test, a web process), so it never imports the Celery tasks module (which imports the agent).
"""

from __future__ import annotations

from typing import Any

_remote: dict[str, Any] = {}


def register(name: str, task: Any) -> None:
    """Offer a task (anything with apply_async) that runs the batch kind `name` in a worker."""
    _remote[name] = task


def remote(name: str) -> Any | None:
    """The task registered for `name`, or None: then the caller runs the batch itself."""
    return _remote.get(name)
