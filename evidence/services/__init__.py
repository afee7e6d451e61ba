"""The services wing: the one way into each of a user's actions and the jobs that keep them honest.

runs (start, follow up, cancel, execute a run; a run's record itself is run_state/'s), uploads (start an upload,
retry a file), evaluations and the evaluation runner (every question through the real research loop), quotas,
queueing (sending work to the workers by task name), the reaper (stale runs and files) and replays. Views, the
API, MCP and commands call these, never tasks directly.
"""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "EvaluationRefused": "evaluations",
    "QuotaExceeded": "quotas",
    "RETRY_AFTER_S": "queueing",
    "check_upload_size": "quotas",
    "evaluate": "evaluation_runner",
    "execute_run": "runs",
    "reap": "reaper",
    "reap_stale_runs": "runs",
    "reclaimable_in_s": "runs",
    "replay_run": "replays",
    "run_evaluation": "evaluations",
}
MODULES = ("evaluations", "queueing", "runs", "uploads")
__getattr__ = face(__name__, FACE, MODULES)
