"""A run's trajectory: the ordered document sets of the recall funnel (SPEC 3 and 6)."""

from __future__ import annotations

from dataclasses import dataclass, field

STAGES = ("surfaced", "previewed", "opened", "inspected", "delivered", "cited")


@dataclass
class Trajectory:
    """Docids per stage, each in first-seen order without repeats."""

    sets: dict[str, list[str]] = field(default_factory=lambda: {stage: [] for stage in STAGES})

    def add(self, stage: str, docids: list[str] | tuple[str, ...]) -> list[str]:
        """Add docids to a stage; return those that were new there."""
        if stage not in STAGES:
            raise ValueError(f"unknown trajectory stage {stage!r}: use one of {', '.join(STAGES)}")
        current = self.sets.setdefault(stage, [])
        seen = set(current)
        new = []
        for docid in docids:
            if docid not in seen:
                seen.add(docid)
                current.append(docid)
                new.append(docid)
        return new

    def __getitem__(self, stage: str) -> list[str]:
        return self.sets.get(stage, [])

    def counts(self) -> dict[str, int]:
        return {stage: len(self.sets.get(stage, [])) for stage in STAGES}

    def as_dict(self) -> dict[str, list[str]]:
        return {stage: list(self.sets.get(stage, [])) for stage in STAGES}

    @classmethod
    def from_dict(cls, data: dict[str, list[str]] | None) -> Trajectory:
        trajectory = cls()
        for stage in STAGES:
            trajectory.add(stage, list((data or {}).get(stage, [])))
        return trajectory
