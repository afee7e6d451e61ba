"""The app as a user runs it: `scripts/run.py` (what `make run` starts) on its own ports and data folder.

Nothing here runs in the test process: Postgres, Redis, the prefork Celery worker and uvicorn are started by
the shipped script exactly as `make run` starts them, and the tests talk to them over HTTP and through Chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
START_TIMEOUT_S = 240
# Variables of the test process that would point the app at the test services instead of its own.
NOT_INHERITED = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "EVIDENCE_TEST_QUEUE", "EVIDENCE_JUDGE_QUEUE",
                 "EVIDENCE_DATA_DIR", "DJANGO_ALLOW_ASYNC_UNSAFE")


@dataclass
class ShippedApp:
    base_url: str
    data_dir: Path
    log_path: Path
    process: subprocess.Popen[bytes]
    reader: str = "extractive"  # EVIDENCE_READER as the app was started with it

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def health(base_url: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=3) as response:
            return json.loads(response.read())
    except Exception:  # not up yet, or 503 while the worker starts
        return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (make browsers)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def shipped_app() -> Iterator[ShippedApp]:
    """Start `python scripts/run.py` with private ports and data; stop it as Ctrl-C does."""
    # /var/tmp, not pytest's private tmp: the Postgres system user must traverse every parent of its folder.
    data_dir = Path(tempfile.mkdtemp(prefix="evidence-journey-", dir="/var/tmp"))
    data_dir.chmod(0o755)
    web_port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in NOT_INHERITED}
    env.update(EVIDENCE_PORT=str(web_port), PG_PORT=str(free_port()), REDIS_PORT=str(free_port()),
               EVIDENCE_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1")
    # The reader model as `make reader` installed it for this checkout: the app's own data folder is new and empty.
    shipped_reader = ROOT / ".data" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    env["EVIDENCE_READER"] = str(shipped_reader) if shipped_reader.is_file() else "extractive"
    log_path = data_dir / "make-run.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "scripts/run.py"], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    app = ShippedApp(f"http://127.0.0.1:{web_port}", data_dir, log_path, process, env["EVIDENCE_READER"])
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"scripts/run.py exited with {process.returncode}:\n{app.log_tail()}")
            state = health(app.base_url)
            if state and state.get("status") == "ok":
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the app was not healthy within {START_TIMEOUT_S} s ({state}):\n{app.log_tail()}")
            time.sleep(1)
        yield app
    finally:
        stop(app, env)


def stop(app: ShippedApp, env: dict[str, str]) -> None:
    """Ctrl-C, as a user stops `make run`; then make sure nothing it started is left."""
    if app.process.poll() is None:
        app.process.send_signal(signal.SIGINT)
        try:
            app.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(app.process.pid, signal.SIGKILL)
            app.process.wait(10)
    subprocess.run([sys.executable, "scripts/services.py", "down"], cwd=ROOT, env=env, capture_output=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(app.log_path, ARTIFACTS / "journey-make-run.log")  # what the processes said, for a failed run
    shutil.rmtree(app.data_dir, ignore_errors=True)
