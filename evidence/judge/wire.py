"""Typed questions as SPEC 4 wire questions ({id: {type, instructions, criteria}}) and answers back.

Shared by the `jev` provider (sent as is) and the `llm` provider (sent inside a chat prompt). The
state carries the text of every unit once; questions refer to blocks by label ("d0.b3").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .types import (
    GRADES,
    Block,
    ChoiceAnswer,
    ChoiceQuestion,
    JudgeError,
    NoulQuestion,
    ScoreAnswer,
    ScoreQuestion,
    Unit,
)

Wire = dict[str, dict[str, Any]]


class State:
    """Collect the units a batch refers to and give each block a short label."""

    def __init__(self) -> None:
        self.units: dict[int, tuple[str, Unit]] = {}

    def label(self, unit: Unit) -> str:
        """Return the unit's label ("d0", "d1", ...), adding it to the state."""
        if id(unit) not in self.units:
            self.units[id(unit)] = (f"d{len(self.units)}", unit)
        return self.units[id(unit)][0]

    def block_label(self, unit: Unit, block: Block) -> str:
        """Return a block's label within the state, e.g. "d0.b3"."""
        return f"{self.label(unit)}.b{unit.blocks.index(block)}"

    def text(self) -> str:
        """Return the state as JSON: every unit with its title and labelled blocks."""
        docs = {
            name: {
                "docid": u.docid,
                "title": u.title,
                "blocks": {f"{name}.b{i}": b.text for i, b in enumerate(u.blocks)},
            }
            for name, u in self.units.values()
        }
        return json.dumps({"documents": docs}, ensure_ascii=False)


def noul_wire(q: NoulQuestion, state: State) -> dict[str, Any]:
    """Render a Noul question."""
    if q.kind == "continue":
        recent = ", ".join(f"{p:.2f}" for p in q.recent)
        return {
            "type": "noul",
            "instructions": q.statement
            or f"Reading more candidates for '{q.goal}' will find another relevant document.",
            "criteria": f"Recent candidates' relevance probabilities: {recent}.",
        }
    if q.unit is None:
        return {"type": "noul", "instructions": q.statement or q.goal, "criteria": q.goal}
    labels = [state.block_label(q.unit, b) for b in q.blocks()]
    statement = q.statement or f"Blocks {', '.join(labels)} contain evidence for: {q.goal}"
    return {"type": "noul", "instructions": statement, "criteria": statement}


def choice_wire(q: ChoiceQuestion, state: State) -> dict[str, Any]:
    """Render a Choice question; block options are described by their text."""
    criteria = {}
    for label, option in q.options.items():
        if isinstance(option, Block) and q.unit is not None:
            criteria[label] = f"{state.block_label(q.unit, option)}: {option.text}"
        else:
            criteria[label] = str(option.text if isinstance(option, Block) else option)
    return {"type": "choice", "instructions": f"{q.instructions} Goal: {q.goal}", "criteria": criteria}


def score_wire(q: ScoreQuestion, state: State) -> dict[str, Any]:
    """Render a Score question over the ordered grades."""
    name = state.label(q.unit)
    instructions = f"How relevant is document {name} to: {q.goal}"
    return {"type": "score", "instructions": instructions, "criteria": list(q.grades)}


def render(questions: Sequence[NoulQuestion | ChoiceQuestion | ScoreQuestion]) -> tuple[str, Wire]:
    """Return (state, questions) for one request; question ids are "q0", "q1", ... in order."""
    state = State()
    wire: Wire = {}
    for i, q in enumerate(questions):
        if isinstance(q, NoulQuestion):
            wire[f"q{i}"] = noul_wire(q, state)
        elif isinstance(q, ChoiceQuestion):
            wire[f"q{i}"] = choice_wire(q, state)
        else:
            wire[f"q{i}"] = score_wire(q, state)
    return state.text(), wire


def _answer(answers: Mapping[str, Any], qid: str) -> Mapping[str, Any]:
    try:
        return answers[qid]
    except KeyError:
        raise JudgeError(f"the response has no answer for question {qid}") from None


def parse_noul(answers: Mapping[str, Any], qid: str) -> float:
    """Read a Noul answer's probability, clipped to [0, 1]."""
    return min(1.0, max(0.0, float(_answer(answers, qid)["noul"])))


def parse_choice(answers: Mapping[str, Any], qid: str, labels: Sequence[str]) -> ChoiceAnswer:
    """Read a Choice answer; labels the provider left out get probability 0."""
    probs = _answer(answers, qid).get("probabilities") or {}
    return ChoiceAnswer.from_probabilities({label: float(probs.get(label, 0.0)) for label in labels})


def parse_score(answers: Mapping[str, Any], qid: str, grades: Sequence[str] = GRADES) -> ScoreAnswer:
    """Read a Score answer whose probabilities are a list in grade order or a mapping by grade or index."""
    raw = _answer(answers, qid)
    probs = raw.get("probabilities")
    if isinstance(probs, Mapping):
        values = [float(probs.get(g, probs.get(str(i), 0.0))) for i, g in enumerate(grades)]
    elif isinstance(probs, list) and len(probs) == len(grades):
        values = [float(p) for p in probs]
    else:
        raise JudgeError(f"question {qid}: score probabilities must cover the {len(grades)} grades")
    total = sum(values) or 1.0
    return ScoreAnswer(tuple(v / total for v in values), tuple(grades), dict(raw.get("legend") or {}))


class AskingJudge:
    """The Judge protocol for providers that answer typed questions as one JSON batch (jev, llm): subclasses ask."""

    def ask(self, questions: Sequence[NoulQuestion | ChoiceQuestion | ScoreQuestion]) -> dict[str, Any]:
        raise NotImplementedError

    def noul(self, questions: Sequence[NoulQuestion]) -> list[float]:
        """Return P(true) per Noul question."""
        answers = self.ask(questions)
        return [parse_noul(answers, f"q{i}") for i in range(len(questions))]

    def choice(self, questions: Sequence[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Return the distribution over options per Choice question."""
        answers = self.ask(questions)
        return [parse_choice(answers, f"q{i}", list(q.options)) for i, q in enumerate(questions)]

    def score(self, questions: Sequence[ScoreQuestion]) -> list[ScoreAnswer]:
        """Return the distribution over grades per Score question."""
        answers = self.ask(questions)
        return [parse_score(answers, f"q{i}", q.grades) for i, q in enumerate(questions)]
