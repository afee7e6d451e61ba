"""Real Celery worker processes for the fault tests: started on a private queue, killable by PID."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """Return a postgresql:// URL of the database Django uses now (the test database under pytest)."""
    s = settings.DATABASES["default"]
    auth = quote(s.get("USER") or "postgres") + (f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else "")
    return f"postgresql://{auth}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


class Worker:
    """One `celery worker` subprocess (thread pool) consuming `queue`, with its log in `log_path`."""

    def __init__(self, queue: str, log_path: Path, data_dir: Path, extra_env: dict[str, str] | None = None,
                 concurrency: int = 2, pool: str | None = None) -> None:
        """`pool` set: the worker command line exactly as `make run` starts it (scripts/run.py), with that pool."""
        self.queue, self.log_path = queue, log_path
        env = {**os.environ, "DATABASE_URL": database_url(), "EVIDENCE_DATA_DIR": str(data_dir),
               "DJANGO_SETTINGS_MODULE": "tests.reliability.worker_settings",
               "EVIDENCE_BASE_SETTINGS": base_settings(),
               "EVIDENCE_JUDGE_QUEUE": f"{queue}-judge", "PYTHONPATH": _pythonpath(), **(extra_env or {})}
        self.log = log_path.open("ab")
        name = f"fault-{uuid.uuid4().hex[:8]}@%h"
        if pool is None:
            command = [sys.executable, "-m", "celery", "-A", "researchapp", "worker", "--pool", "threads",
                       "--concurrency", str(concurrency), "-Q", f"{queue},{queue}-judge", "--loglevel", "INFO",
                       "-n", name, "--without-gossip", "--without-mingle"]
        else:
            from scripts.run import worker_command

            command = worker_command(pool=pool, queues=f"{queue},{queue}-judge", hostname=name)
            env["EVIDENCE_TASK_QUEUE"] = queue
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Wait for Celery's "ready." line (each worker logs to its own file)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited ({self.process.returncode}): see {self.log_path}")
            if b" ready." in self.log_path.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"the worker was not ready within {timeout_s} s: see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the worker and its pool and parse processes: no shutdown handlers, no acks, a lost machine."""
        import psutil

        try:
            family = [psutil.Process(self.pid), *psutil.Process(self.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            family = []
        for process in family:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()


def base_settings() -> str:
    """Return the settings module the subprocess settings extend (the one this process runs on)."""
    current = os.environ.get("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    if current == "tests.reliability.worker_settings":
        return os.environ.get("EVIDENCE_BASE_SETTINGS", "researchapp.settings")
    return current


def _pythonpath() -> str:
    parts = [str(ROOT), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    return os.pathsep.join(dict.fromkeys(parts))


def purge(queue: str) -> None:
    """Drop whatever is left on a test queue (and its judge queue) in the broker."""
    from evidence.ratelimit import connect

    client = connect(settings.CELERY_BROKER_URL)
    for name in (queue, f"{queue}-judge"):
        client.delete(name, *(f"{name}\x06\x16{p}" for p in range(1, 10)))
