"""What the reader model is asked, and how its reply is read back: pure functions, no model.

The instruction is the same for every question, so the model's state after it is kept between questions; what
changes (the question and its evidence sentences) comes after it. The model extracts freely (a numbered list of
candidate answers did far worse); its reply is then anchored in the sentences by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import labelled_row, split_frame

INSTRUCTION = (
    "You answer questions about research papers from the numbered sentences given, and from nothing else. "
    "Reply with only the shortest exact answer, copied from one sentence: a number with its unit, a name, or a "
    "short phrase. For a yes/no question reply yes or no. If no sentence states the answer, reply: not stated"
)
EXAMPLE = "Example reply: 3.9%"
TITLE_WORDS = 8
NOT_STATED = "not stated"
_NOT_STATED = re.compile(
    r"^(?:not stated|not mentioned|not given|not specified|not provided|unanswerable|unknown|none|n/?a|"
    r"no answer|cannot be determined|the sentences do not)\b",
    re.I,
)
_NUMBERED = re.compile(r"^\s*\[\s*(\d{1,2})\s*\]\s*[:.\-]?\s*")


@dataclass(frozen=True)
class Evidence:
    """One evidence sentence as the reader shows it: its text and the paper it comes from."""

    text: str
    title: str = ""
    table: str = ""  # for a table row: its table's caption and header, which say what its numbers are


@dataclass(frozen=True)
class Reply:
    """The model's reply read back: the answer text, the sentence it names (0-based; None: not named)."""

    text: str
    sentence: int | None
    not_stated: bool
    polarity: str | None  # "yes" / "no" for a yes/no reply


def user_message(question: str, evidence: Sequence[Evidence]) -> str:
    """Return the question and its numbered sentences, under each paper's short title when they come from several."""
    lines: list[str] = []
    title = None
    several = len({item.title for item in evidence}) > 1  # one paper's title tells the model nothing: left out
    for number, item in enumerate(evidence, start=1):
        short = _short_title(item.title) if several else ""
        if short and short != title:
            lines.append(f"Paper: {short}")
            title = short
        lines.append(f"[{number}] {evidence_line(item)}")
    lines.append(f"Question: {' '.join(question.split())}")
    return "\n".join(lines)


CHECK = (
    "Proposed answer: {answer}\nIs every detail the question asks about mentioned in the sentences? Reply yes or no."
)


def check_message(question: str, evidence: Sequence[Evidence], answer: str) -> str:
    """The answerability check: the same sentences and question (so the model's state is kept), then the answer it
    gave and whether the sentences mention every detail the question asks about."""
    return f"{user_message(question, evidence)}\n{CHECK.format(answer=' '.join(answer.split()))}"


def evidence_line(item: Evidence) -> str:
    """One sentence as the model reads it: a table row with each cell named by its column when the header pairs
    up with its cells (then only the caption beside it), else the row with its table's caption and header."""
    text = " ".join(item.text.split())
    if not item.table:
        return text
    caption, header = split_frame(item.table)
    labelled = labelled_row(text, header) if header else ""
    frame = caption if labelled else item.table
    note = f" (table: {' '.join(frame.split())})" if frame else ""
    return f"{labelled or text}{note}"


def system_message() -> str:
    return f"{INSTRUCTION}\n{EXAMPLE}"


def chatml(system: str, user: str) -> str:
    """Return the conversation in ChatML, the template of the Qwen2.5 and SmolLM2 instruct models."""
    return f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


def read_reply(raw: str, sentences: int) -> Reply:
    """Return the reply's answer, the sentence it names and whether it says the answer is not stated."""
    line = " ".join(raw.split())  # the host stops at the first line break after the answer's first word
    sentence = None
    numbered = _NUMBERED.match(line)
    if numbered:
        number = int(numbered.group(1))
        sentence = number - 1 if 1 <= number <= sentences else None
        line = line[numbered.end() :]
    text = _clean(line)
    if not text or _NOT_STATED.match(text):
        return Reply("", None, True, None)
    polar = re.match(r"^(yes|no)\b[\s,.;:!]*", text, re.I)
    polarity = polar.group(1).lower() if polar else None
    return Reply(text, sentence, False, polarity)


def _clean(text: str) -> str:
    """Drop the wrapping a model adds around a span: quotes, a final full stop, 'Answer:'."""
    text = re.sub(r"^(?:answer|short answer)\s*:\s*", "", text.strip(), flags=re.I)
    for _ in range(2):  # '"Chubby".' and "'Chubby.'" alike
        text = text.strip().strip("\"'`“”‘’*").strip()
        if text.endswith(".") and not re.search(r"\b(?:et al|e\.g|i\.e|etc|vs)\.$", text):
            text = text[:-1].rstrip()
    return text


def _short_title(title: str) -> str:
    words = title.split()
    return " ".join(words[:TITLE_WORDS]) + (" ..." if len(words) > TITLE_WORDS else "")
