"""/health answers within 3 s whatever hangs: a Redis stopped with SIGSTOP (accepts, never replies) is reported as
hung, in a web process started as `make run` starts it; /live answers without asking any service."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import httpx
import pytest

from tests.reliability.test_redis_durable import ROOT, free_port, services, start
from tests.reliability.workers import database_url

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_health_answers_within_three_seconds_while_redis_hangs(tmp_path):
    svc = services()
    port = free_port()
    redis_pid = start(svc, port, tmp_path)
    web_port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": f"redis://127.0.0.1:{port}/0",
        "EVIDENCE_DATA_DIR": str(tmp_path / "data"),
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": "x" * 50,
    }
    from scripts.run import web_command

    log = (tmp_path / "web.log").open("wb")
    web = subprocess.Popen(web_command(port=web_port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/live", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and web.poll() is None, (tmp_path / "web.log").read_text()[-3000:]
            time.sleep(0.3)
        os.kill(redis_pid, signal.SIGSTOP)  # hung: connections are accepted, nothing is ever answered
        for _ in range(3):  # the second and third requests find the first one's checks still hanging
            began = time.monotonic()
            response = httpx.get(f"{base}/health", timeout=10)
            elapsed = time.monotonic() - began
            assert elapsed < 3.0, f"/health took {elapsed:.1f} s"
            assert response.status_code == 503
            checks = response.json()["checks"]
            assert checks["database"]["status"] == "ok"
            assert checks["broker"]["status"] == "error" and checks["worker"]["status"] == "error"
        live = httpx.get(f"{base}/live", timeout=2)
        assert live.status_code == 200 and live.json() == {"status": "ok"}
    finally:
        os.kill(redis_pid, signal.SIGCONT)
        os.kill(redis_pid, signal.SIGKILL)
        web.terminate()
        try:
            web.wait(15)
        except subprocess.TimeoutExpired:
            web.kill()
        log.close()
