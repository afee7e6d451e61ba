"""scripts/run.py (`make run`): the banner waits for /health to say 200, a crash loop stops the wait, and a worker
started as root leaves out Celery's warning about it (and only that one)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scripts import run
from scripts.run import ROOT_WARNING, Supervised, health_state, wait_until_healthy, worker_command

CHECKS_503 = {"status": "error", "checks": {"database": {"status": "ok"}, "worker": {"status": "error"}}}


@pytest.fixture
def health_server() -> Iterator[tuple[str, list[int]]]:
    """A /health that answers 503 (no worker yet) twice, then 200; yields its URL and the statuses it sent."""
    sent: list[int] = []

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = 503 if len(sent) < 2 else 200
            sent.append(status)
            body = json.dumps(CHECKS_503 if status == 503 else {"status": "ok", "checks": {}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/health", sent
    server.shutdown()
    server.server_close()


def test_it_waits_for_health_200_before_the_banner(health_server):
    url, sent = health_server
    assert health_state(url) == (503, CHECKS_503)
    assert wait_until_healthy(url, [], limit_s=10, poll_s=0.01) is None
    assert sent == [503, 503, 200]


def test_it_says_what_is_not_ready_when_the_wait_ends(health_server):
    url, sent = health_server
    sent.clear()
    assert wait_until_healthy(url, [], limit_s=0, poll_s=0.01) == "not ok: worker"
    assert wait_until_healthy("http://127.0.0.1:9/health", [], limit_s=0) == "the web server does not answer"


def test_a_child_that_keeps_exiting_ends_the_wait(monkeypatch):
    monkeypatch.setattr(run, "MAX_RESTARTS_PER_WINDOW", 2)
    child = Supervised("worker", lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    assert wait_until_healthy("http://127.0.0.1:9/health", [child], limit_s=30, poll_s=0.05) == (
        "the worker keeps exiting"
    )
    assert child.gave_up


@pytest.mark.parametrize(("uid", "quiet"), [(0, True), (1000, False)])
def test_only_a_root_worker_leaves_out_celerys_root_warning(monkeypatch, uid, quiet):
    monkeypatch.setattr(run.os, "geteuid", lambda: uid)
    command = worker_command()
    assert (ROOT_WARNING in command) is quiet
    assert command[command.index("-m") :][:5] == ["-m", "celery", "-A", "researchapp", "worker"]


def test_the_filter_matches_celerys_warning_and_nothing_else():
    # Celery's own check, as root would see it; with the worker's -W filter it says nothing, without it warns.
    code = (
        "import os, warnings; os.getuid = os.geteuid = lambda: 0\n"
        "from celery.platforms import check_privileges; check_privileges({'json'})\n"
        "warnings.warn('another warning')"
    )
    loud = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
    quiet = subprocess.run(
        [sys.executable, "-W", ROOT_WARNING, "-c", code], capture_output=True, text=True, check=True
    ).stderr
    assert "superuser privileges" in loud and "another warning" in loud
    assert "superuser privileges" not in quiet and "another warning" in quiet
