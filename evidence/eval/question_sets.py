"""A question set to evaluate: the realqa JSON or a CSV, read into the items the papers benchmark asks, every bad
row named in a plain sentence (its number and what is wrong with it).

An item: {"qid", "question", "answers" (the gold short answer first, then accepted variants), "type",
"evidence": [{"docid", "quote"}]}; a CSV's quotes carry no docid ("" : looked for in every paper at scoring).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from typing import Any

MAX_BYTES = 1024 * 1024
MAX_QUESTIONS = 200
MAX_QUESTION_CHARS = 2000  # as the Ask page's question
MAX_PROBLEMS_SHOWN = 20
TYPES = ("number", "named", "yes_no", "purpose", "table", "unanswerable")
UNANSWERABLE = "unanswerable"
# CSV columns by the names people give them (lowercased, spaces and dashes as underscores).
COLUMNS = {
    "question": "question",
    "answers": "answers",
    "answer": "answers",
    "evidence": "evidence",
    "evidence_quote": "evidence",
    "quote": "evidence",
    "type": "type",
    "qid": "qid",
    "id": "qid",
}


class QuestionSetError(ValueError):
    """A question set that cannot be evaluated; `problems` holds one plain sentence per thing wrong."""

    def __init__(self, problems: list[str]) -> None:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        if len(problems) > MAX_PROBLEMS_SHOWN:
            shown.append(f"… and {len(problems) - MAX_PROBLEMS_SHOWN} more problems like these.")
        super().__init__(" ".join(shown))
        self.problems = shown


def read_question_set(name: str, data: bytes, limited: bool = True) -> list[dict[str, Any]]:
    """Return the questions of a file (JSON or CSV, by its name or else its first character); `limited`, an upload's
    limits on its size and number of questions apply (the command line has none)."""
    if limited and len(data) > MAX_BYTES:
        kb, limit = len(data) // 1024, MAX_BYTES // 1024
        raise QuestionSetError([f"The file is {kb} KB, over the limit of {limit} KB: split it into smaller sets."])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        where = error.start + 1
        raise QuestionSetError(
            [f"The file is not UTF-8 text (byte {where} cannot be read): save it as UTF-8 and upload it again."]
        ) from error
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix == "json" or (suffix not in {"csv", "tsv", "txt"} and text.lstrip()[:1] in {"[", "{"}):
        items = from_json(text)
    else:
        items = from_csv(text)
    if not items:
        raise QuestionSetError(["The file holds no questions."])
    if limited and len(items) > MAX_QUESTIONS:
        raise QuestionSetError(
            [f"The file holds {len(items)} questions, over the limit of {MAX_QUESTIONS}: split it into smaller sets."]
        )
    return items


def from_json(text: str) -> list[dict[str, Any]]:
    """Read the realqa JSON: a list of objects with a question, its answers, and optionally a type and evidence."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise QuestionSetError([f"The file is not valid JSON: {error.msg} at line {error.lineno}."]) from error
    if isinstance(raw, dict) and isinstance(raw.get("questions"), list):
        raw = raw["questions"]
    if not isinstance(raw, list):
        raise QuestionSetError(["The JSON must be a list of questions, each an object with a question and answers."])
    return checked([(f"Question {n}", row) for n, row in enumerate(raw, start=1)])


def from_csv(text: str) -> list[dict[str, Any]]:
    """Read a CSV with a header: question, answers (split on " | " or ";"), optionally evidence, type and qid."""
    first = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first and "," not in first else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = next(reader, None)
    if not header or not any(cell.strip() for cell in header):
        raise QuestionSetError(["The CSV is empty: its first row must name the columns (question, answers)."])
    names = [cell.strip().lower().replace(" ", "_").replace("-", "_") for cell in header]
    columns = {COLUMNS[name]: i for i, name in reversed(list(enumerate(names))) if name in COLUMNS}
    missing = [name for name in ("question", "answers") if name not in columns]
    if missing:
        raise QuestionSetError(
            [
                f"The CSV's first row has no {' or '.join(repr(m) for m in missing)} column: name the columns "
                f"question, answers and (optionally) evidence; it has {', '.join(repr(h) for h in header)}."
            ]
        )
    rows = []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue  # blank lines (a spreadsheet's trailing rows)
        cells = {field: row[i].strip() if i < len(row) else "" for field, i in columns.items()}
        quote = cells.get("evidence", "")
        rows.append(
            (
                f"Row {reader.line_num}",
                {
                    "qid": cells.get("qid", ""),
                    "question": cells["question"],
                    "answers": split_answers(cells["answers"]),
                    "type": cells.get("type", ""),
                    "evidence": [{"docid": "", "quote": quote}] if quote else [],
                },
            )
        )
    return checked(rows)


def split_answers(cell: str) -> list[str]:
    """Split a CSV cell of accepted answers on " | " (or, with none, on ";")."""
    parts = cell.split("|") if "|" in cell else cell.split(";")
    return [part.strip() for part in parts if part.strip()]


def checked(rows: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Return the rows as items, or raise with every problem found (each row named as `where`)."""
    items, problems, seen = [], [], {}
    for where, raw in rows:
        item, wrong = check_item(where, raw)
        problems.extend(wrong)
        if item is None:
            continue
        qid = item["qid"] or f"q{len(items) + 1}"
        if qid in seen:
            problems.append(f"{where} has the id {qid!r}, already used by {seen[qid]}: give each question its own.")
        seen[qid] = where
        items.append({**item, "qid": qid})
    if problems:
        raise QuestionSetError(problems)
    return items


def check_item(where: str, raw: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """Return one question as an item and the problems found in it (an item only when there are none)."""
    if not isinstance(raw, dict):
        return None, [f"{where} is not an object with a question and its answers."]
    problems = []
    question = raw.get("question")
    question = question.strip() if isinstance(question, str) else ""
    if not question:
        problems.append(f"{where} has no question.")
    elif len(question) > MAX_QUESTION_CHARS:
        problems.append(f"{where}'s question is {len(question)} characters long, over the limit of 2000.")
    answers = raw.get("answers", raw.get("answer"))
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not all(isinstance(a, str | int | float) for a in answers):
        answers = None
    answers = [str(a).strip() for a in answers or [] if str(a).strip()]
    if not answers:
        problems.append(
            f"{where} has no answers: give at least one (for a question the papers cannot answer, "
            f"the answer {UNANSWERABLE!r})."
        )
    qtype = raw.get("type") or ""
    if not isinstance(qtype, str) or (qtype.strip() and qtype.strip().lower() not in TYPES):
        problems.append(f"{where} has the type {qtype!r}: use one of {', '.join(TYPES)}, or leave it empty.")
    qtype = str(qtype).strip().lower()
    if not qtype and [a.lower() for a in answers] == [UNANSWERABLE]:
        qtype = UNANSWERABLE
    evidence, wrong = check_evidence(where, raw.get("evidence"))
    problems.extend(wrong)
    if qtype == UNANSWERABLE and evidence:
        problems.append(f"{where} is unanswerable but gives evidence: drop the evidence or the type.")
    qid = raw.get("qid", raw.get("id", ""))
    if problems:
        return None, problems
    return {"qid": str(qid).strip(), "question": question, "answers": answers, "type": qtype, "evidence": evidence}, []


def check_evidence(where: str, raw: Any) -> tuple[list[dict[str, str]], list[str]]:
    """Return a question's evidence quotes ({docid, quote}; a bare string is a quote in any paper) and problems."""
    if raw in (None, "", []):
        return [], []
    if not isinstance(raw, list):
        raw = [raw]
    evidence, problems = [], []
    for n, entry in enumerate(raw, start=1):
        if isinstance(entry, str):
            entry = {"quote": entry}
        quote = entry.get("quote") if isinstance(entry, dict) else None
        docid = entry.get("docid") or "" if isinstance(entry, dict) else ""
        if not isinstance(quote, str) or not quote.strip() or not isinstance(docid, str):
            problems.append(f"{where}'s evidence {n} has no quote: give the passage that states the answer, verbatim.")
            continue
        evidence.append({"docid": docid.strip(), "quote": quote.strip()})
    return evidence, problems


def digest(items: list[dict[str, Any]]) -> str:
    """A short fingerprint of a question set (in an evaluation's key: another set is another evaluation)."""
    return hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()[:16]
