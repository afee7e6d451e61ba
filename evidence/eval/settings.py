"""An evaluation's settings, typed: the run configuration its questions are asked with, and its own (time budget,
quiet events, the question offset, an LLM answer judge). Stored on Evaluation.config as the same JSON as before,
so an evaluation's key (and so its resumption) does not change; `of` is the one reader of stored rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..run_state import RunConfig


@dataclass(frozen=True)
class AnswerJudge:
    """An LLM asked whether each answer is right: a model at an endpoint, or the recorded calls of an evaluation."""

    model: str
    base_url: str | None = None
    replay_of_evaluation: int | None = None

    def as_stored(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url, "replay_of_evaluation": self.replay_of_evaluation}


@dataclass(frozen=True)
class EvaluationSettings:
    run: dict[str, Any]  # RunConfig fields every question's run starts from (validated by RunConfig.parse)
    quiet_events: bool = False
    budget_s: float | None = None
    offset: int = 0
    answer_judge: AnswerJudge | None = None
    scoped: bool = False  # papers: each question asked about its own paper only ("Ask about this document")

    @classmethod
    def of(cls, stored: dict[str, Any] | None) -> EvaluationSettings:
        stored = dict(stored or {})
        judge = stored.get("answer_judge")
        return cls(
            run=RunConfig.known(stored),
            quiet_events=bool(stored.get("quiet_events")),
            budget_s=float(stored["budget_s"]) if stored.get("budget_s") is not None else None,
            offset=int(stored.get("offset") or 0),
            scoped=bool(stored.get("scoped")),
            answer_judge=AnswerJudge(str(judge["model"]), judge.get("base_url"), judge.get("replay_of_evaluation"))
            if isinstance(judge, dict) and judge.get("model")
            else None,
        )

    def as_stored(self) -> dict[str, Any]:
        """The JSON on the row, key for key as the evaluation command has always written it."""
        stored: dict[str, Any] = (
            {**self.run, "quiet_events": self.quiet_events} if self.quiet_events else dict(self.run)
        )
        if self.budget_s is not None:
            stored["budget_s"] = self.budget_s
        if self.offset:
            stored["offset"] = self.offset
        if self.answer_judge is not None:
            stored["answer_judge"] = self.answer_judge.as_stored()
        if self.scoped:
            stored["scoped"] = True
        return stored
