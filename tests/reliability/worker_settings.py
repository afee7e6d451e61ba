"""Settings of the processes the fault and load tests start: the session's settings plus short fault windows."""

import importlib
import os

_base = importlib.import_module(os.environ.get("EVIDENCE_BASE_SETTINGS", "researchapp.settings"))
globals().update({name: value for name, value in vars(_base).items() if name.isupper()})

EVIDENCE_RUN_STALE_AFTER_S = float(os.environ.get("EVIDENCE_RUN_STALE_AFTER_S", "3"))
EVIDENCE_JUDGE_QUEUE = os.environ.get("EVIDENCE_JUDGE_QUEUE", "judge")
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("EVIDENCE_TASK_QUEUE", "celery")
