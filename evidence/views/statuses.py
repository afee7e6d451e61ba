"""A run's status in the words a researcher reads: what happened ("Stopped: round limit"), not the stored value.

The model's choices keep their labels (changing them would need a migration for words alone); pages show these.
"""

from __future__ import annotations

from ..models import Run

STATUS_WORDS: dict[str, str] = {
    Run.Status.QUEUED: "Queued",
    Run.Status.RUNNING: "Running",
    Run.Status.ANSWERED: "Answered",
    Run.Status.NOT_FOUND: "Not found",
    Run.Status.ROUND_CAP: "Stopped: round limit",
    Run.Status.NO_NEW_PASSAGES: "Stopped: no new passages",
    Run.Status.DEADLINE: "Stopped: time limit",
    Run.Status.BUDGET: "Stopped: spending limit",
    Run.Status.FAILED: "Failed",
    Run.Status.CANCELLED: "Cancelled",
}


def status_words(status: object) -> str:
    """Say what a run's status means; a status this table does not know yet is its value in plain letters."""
    return STATUS_WORDS.get(str(status), str(status or "").replace("_", " ").capitalize())


def status_choices() -> list[tuple[str, str]]:
    """The status filter's options: each stored value with its words."""
    return [(value, status_words(value)) for value in Run.Status.values]
