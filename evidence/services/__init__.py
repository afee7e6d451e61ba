"""The services wing: the one way into each of a user's actions and the jobs that keep them honest.

runs (start, follow up, cancel, execute a run; a run's record itself is run_state/'s), uploads (start an upload,
retry a file), evaluations and the evaluation runner (every question through the real research loop), quotas,
queueing (sending work to the workers by task name), the reaper (stale runs and files) and replays. Views, the
API, MCP and commands call these, never tasks directly.
"""
