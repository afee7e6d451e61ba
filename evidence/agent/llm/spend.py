"""The spending cap: a call is refused before it is made if its worst case could cross the cap."""

from __future__ import annotations

import threading

from .errors import BudgetExceeded

__all__ = ["BudgetExceeded", "SpendingCap"]


class SpendingCap:
    """Track spend against a cap in USD; safe to share between threads (parallel judge calls).

    `reserve` holds a call's worst case while it is in flight, so two threads cannot both pass the check
    with room for only one; `settle` swaps the reservation for the actual cost.
    """

    def __init__(self, cap_usd: float, spent_usd: float = 0.0) -> None:
        if cap_usd < 0:
            raise ValueError(f"cap_usd must be >= 0, got {cap_usd}")
        self.cap_usd = cap_usd
        self._spent = spent_usd
        self._reserved = 0.0
        self._lock = threading.Lock()

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def remaining_usd(self) -> float:
        with self._lock:
            return self.cap_usd - self._spent - self._reserved

    def check(self, worst_case_usd: float) -> None:
        """Raise BudgetExceeded if a call costing up to `worst_case_usd` could cross the cap."""
        with self._lock:
            self._check_locked(worst_case_usd)

    def add(self, actual_usd: float) -> None:
        """Add the actual cost of a finished call."""
        with self._lock:
            self._spent += actual_usd

    def reserve(self, worst_case_usd: float) -> None:
        """Check the worst case and hold it until `settle`."""
        with self._lock:
            self._check_locked(worst_case_usd)
            self._reserved += worst_case_usd

    def settle(self, worst_case_usd: float, actual_usd: float) -> None:
        """Release a reservation and add the actual cost (0 for an attempt that was not billed)."""
        with self._lock:
            self._reserved = max(0.0, self._reserved - worst_case_usd)
            self._spent += actual_usd

    def _check_locked(self, worst_case_usd: float) -> None:
        committed = self._spent + self._reserved
        # A tiny tolerance so float rounding never refuses a call that lands exactly on the cap.
        if committed + worst_case_usd > self.cap_usd + 1e-12:
            raise BudgetExceeded(self.cap_usd, committed, worst_case_usd)
