"""A run's record, below the agent and the services that act on it: its configuration (`RunConfig`, validated
once), its stored answer (`StoredAnswer.of(run)`, the one reader of `run.answer`) and its life (the one writer of
a run's status and heartbeat: the claim, the beat, a cancel, every end and the one `finished` event)."""

from .config import (
    JUDGES,
    LOCALIZE_OPTIONS,
    MAX_EARLIER_TURNS,
    EarlierTurn,
    LocalizeOptions,
    RunConfig,
    RunOptions,
    describe,
    user_config,
)
from .lifecycle import FINISHED, announce_end, ask_to_cancel, beat, end_run, end_state, mark_running, record_end
from .stored_answer import UNFINISHED, StoredAnswer, outcome_of

__all__ = [
    "FINISHED",
    "JUDGES",
    "LOCALIZE_OPTIONS",
    "MAX_EARLIER_TURNS",
    "UNFINISHED",
    "EarlierTurn",
    "LocalizeOptions",
    "RunConfig",
    "RunOptions",
    "StoredAnswer",
    "announce_end",
    "ask_to_cancel",
    "beat",
    "describe",
    "end_run",
    "end_state",
    "mark_running",
    "outcome_of",
    "record_end",
    "user_config",
]
