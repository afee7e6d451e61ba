"""The floor of the agent: a run's context, clock and recorder (the one writer of its rows and of its trajectory,
the recall funnel), the steps every system takes (read, answer), question analysis, the planner and judge choice,
the units a run reads, the search tools, and the composed answer. It imports no other room of agent/ but llm/."""

from ...text import QUESTION_WORDS, Plan, refine_query
from .answering import NOT_FOUND, Answer, attach_citations, compose, compose_extractive
from .clock import DeadlineReached, TimeBudget
from .context import Outcome, RunContext
from .heuristic import heuristic_spans
from .judges import JudgeSpec, make_judge
from .planners import ModelPlanner, planner_for
from .progress import PROGRESS, ticking
from .recorder import STAGES, RunCancelled, RunRecorder, Trajectory
from .steps import (
    MAX_ROUNDS,
    SCOPED_PASSAGE_LIMIT,
    SUPPORTED,
    answer_from,
    ctx_units,
    plain_select,
    read_top,
    reader_of,
    unit_key,
)
from .tools import ResearchTools, ToolError
from .units import UnitRef, load_document_units, load_units, load_units_by_ref, unit_ref

__all__ = [
    "MAX_ROUNDS",
    "NOT_FOUND",
    "PROGRESS",
    "QUESTION_WORDS",
    "SCOPED_PASSAGE_LIMIT",
    "STAGES",
    "SUPPORTED",
    "Answer",
    "DeadlineReached",
    "JudgeSpec",
    "ModelPlanner",
    "Outcome",
    "Plan",
    "ResearchTools",
    "RunCancelled",
    "RunContext",
    "RunRecorder",
    "TimeBudget",
    "ToolError",
    "Trajectory",
    "UnitRef",
    "answer_from",
    "attach_citations",
    "compose",
    "compose_extractive",
    "ctx_units",
    "heuristic_spans",
    "load_document_units",
    "load_units",
    "load_units_by_ref",
    "make_judge",
    "plain_select",
    "planner_for",
    "read_top",
    "reader_of",
    "refine_query",
    "ticking",
    "unit_key",
    "unit_ref",
]
