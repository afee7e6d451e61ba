"""The run's time budget: a steer at 0.7 T (tools blocked, submit now) and a hard end at T."""

from __future__ import annotations

import time
from collections.abc import Callable

STEER_FRACTION = 0.7


class DeadlineReached(Exception):
    """The run's time budget is spent: it ends with what it has."""


class TimeBudget:
    def __init__(self, total_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total_s = total_s
        self.clock = clock
        self.started = clock()

    def elapsed(self) -> float:
        return self.clock() - self.started

    def remaining(self) -> float:
        return self.total_s - self.elapsed()

    def seconds_to_steer(self) -> float:
        return STEER_FRACTION * self.total_s - self.elapsed()

    @property
    def steer_due(self) -> bool:
        return self.elapsed() >= STEER_FRACTION * self.total_s

    @property
    def expired(self) -> bool:
        return self.elapsed() >= self.total_s

    def check(self) -> None:
        """Raise DeadlineReached once the budget is spent."""
        if self.expired:
            raise DeadlineReached(f"the time budget of {self.total_s:.0f} s is spent")
