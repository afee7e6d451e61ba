"""Structured logs: one JSON object per line, tagged with the run, upload file or request being worked on.

Context travels in contextvars, set by `bind(...)` (the request middleware) and by Celery's task signals for
the two long tasks, so every log line a run's worker writes carries its run_id without threading it through.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

CONTEXT: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("evidence_log_context")
FIELDS = ("run_id", "job_id", "file_id", "request_id", "task_id")
# Attributes every LogRecord has; anything else was passed with `extra=` and is worth keeping.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


@contextlib.contextmanager
def bind(**fields: Any) -> Iterator[None]:
    """Add fields (run_id=..., request_id=...) to every log line written inside the block."""
    token = CONTEXT.set({**CONTEXT.get({}), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        CONTEXT.reset(token)


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line: time, level, logger, message, context ids, extras, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(CONTEXT.get({}))
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return json.dumps(entry, default=str, ensure_ascii=False)


TASK_IDS = {"evidence.run_research": "run_id", "evidence.ingest_file": "file_id"}


def _task_started(task_id: str | None = None, task: Any = None, args: Any = None, **_: Any) -> None:
    field = TASK_IDS.get(getattr(task, "name", ""))
    fields: dict[str, Any] = {"task_id": task_id}
    if field and args:
        fields[field] = args[0]
    CONTEXT.set(fields)  # a pool thread runs one task at a time: the previous task's ids are replaced


def _task_ended(**_: Any) -> None:
    CONTEXT.set({})


def connect_task_signals() -> None:
    """Tag worker log lines with the task's run or file id (called once when the formatter is configured)."""
    from celery.signals import task_postrun, task_prerun

    task_prerun.connect(_task_started, weak=False, dispatch_uid="evidence-log-context-start")
    task_postrun.connect(_task_ended, weak=False, dispatch_uid="evidence-log-context-end")


class WorkerJsonFormatter(JsonFormatter):
    """The JSON formatter, which also hooks Celery's task signals when logging is configured."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        connect_task_signals()
