"""`make run` supervises its worker: a worker that crashes is started again, and the rest stays up."""

from __future__ import annotations

import signal
import time

import psutil
import pytest

from tests.journeys.conftest import health

pytestmark = [pytest.mark.slow, pytest.mark.journey]


def celery_worker(app) -> psutil.Process:
    for child in psutil.Process(app.process.pid).children():
        if "celery" in " ".join(child.cmdline()):
            return child
    raise AssertionError(f"no celery worker under scripts/run.py:\n{app.log_tail()}")


def test_a_killed_worker_is_restarted_and_the_web_server_and_services_stay_up(shipped_app):
    worker = celery_worker(shipped_app)
    web = [c for c in psutil.Process(shipped_app.process.pid).children() if "uvicorn" in " ".join(c.cmdline())]
    assert len(web) == 1
    for process in [worker, *worker.children(recursive=True)]:
        process.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    deadline = killed_at + 90
    while True:
        state = health(shipped_app.base_url)
        try:
            replaced = celery_worker(shipped_app).pid != worker.pid
        except (AssertionError, psutil.Error):  # between the crash and the restart, or the dead one not yet reaped
            replaced = False
        if replaced and state and state["status"] == "ok":
            break
        late = time.monotonic() > deadline
        assert not late, f"no healthy worker 90 s after the kill ({state}):\n{shipped_app.log_tail()}"
        time.sleep(0.5)
    print(f"worker killed: healthy again after {time.monotonic() - killed_at:.1f} s")
    assert shipped_app.process.poll() is None, "scripts/run.py kept running"
    assert web[0].is_running() and web[0].pid in [c.pid for c in psutil.Process(shipped_app.process.pid).children()]
    assert "the worker was killed by signal 9: restarting it" in shipped_app.log_path.read_text()
