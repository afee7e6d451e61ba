"""The Celery worker as `make run` starts it (scripts/run.py worker_command), for benchmarks: on a Redis database
of its own, so no other worker takes the tasks; stopped with its whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def use_own_redis_db(db: int) -> None:
    """Point this process (and the worker it starts) at Redis database `db`; call before django.setup()."""
    port = os.environ.get("REDIS_PORT", "56379")
    os.environ["REDIS_URL"] = f"redis://127.0.0.1:{port}/{db}"


@contextmanager
def shipped_worker(name: str) -> Iterator[list[str]]:
    """Run the shipped worker while the block runs; yield its command line."""
    from scripts.run import worker_command

    command = worker_command(hostname=f"{name}-{os.getpid()}@%h")
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"{name}-{os.getpid()}.log", "w")  # noqa: SIM115
    worker = subprocess.Popen(command, cwd=ROOT, env=os.environ, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)  # fmt: skip
    try:
        yield command
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
        log.close()
