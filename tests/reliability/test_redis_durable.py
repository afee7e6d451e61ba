"""A queued message survives a Redis crash and restart: redis-server runs as scripts/services.py starts it (AOF)."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from kombu import Connection

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def services():
    spec = importlib.util.spec_from_file_location("evidence_services", ROOT / "scripts" / "services.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(svc, port: int, folder: Path) -> int:
    """Start a private redis-server exactly as services.py does (own port and folder); return its PID."""
    pidfile = folder / "redis.pid"
    pidfile.unlink(missing_ok=True)
    subprocess.run(
        svc.redis_server_command(port, folder / "redis", pidfile, folder / "redis.log"), check=True, capture_output=True
    )
    deadline = time.monotonic() + 10
    while not (pidfile.exists() and svc.port_in_use(port)):
        assert time.monotonic() < deadline, (folder / "redis.log").read_text()
        time.sleep(0.05)
    time.sleep(0.2)  # the port opens before the AOF is loaded
    return int(pidfile.read_text())


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)  # a crash: no shutdown save, only what the append-only file already holds
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def test_a_queued_message_survives_a_redis_crash(tmp_path):
    svc = services()
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    pid = start(svc, port, tmp_path)
    try:
        with Connection(url) as conn:
            conn.SimpleQueue("evidence-durability").put({"run_id": 42})
        time.sleep(1.2)  # appendfsync everysec: at most a second is at risk on a power cut
        kill(pid)
        pid = start(svc, port, tmp_path)
        with Connection(url) as conn:
            queue = conn.SimpleQueue("evidence-durability")
            message = queue.get(timeout=5)
            message.ack()
        assert message.payload == {"run_id": 42}
        assert (tmp_path / "redis" / "appendonly.aof").exists()
    finally:
        kill(pid)
