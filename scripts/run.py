"""`make run`: start the services, migrate, load the demo, then run web + worker in the foreground.

Ctrl-C stops the web server, the worker and the services this script started, leaving nothing behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
WEB_HOST = os.environ.get("EVIDENCE_HOST", "127.0.0.1")
WEB_PORT = int(os.environ.get("EVIDENCE_PORT", "8000"))


def step(args: list[str]) -> None:
    result = subprocess.run(args, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(result.returncode)


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((WEB_HOST, port)) != 0


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> None:
    if not port_free(WEB_PORT):
        print(
            f"error: port {WEB_PORT} is already in use: stop that program or set EVIDENCE_PORT to a free port.",
            file=sys.stderr,
        )
        sys.exit(1)
    step([PY, "scripts/services.py", "up"])
    processes: list[subprocess.Popen[bytes]] = []
    try:
        step([PY, "manage.py", "migrate", "--noinput", "-v", "0"])
        step([PY, "manage.py", "load_demo"])
        processes.append(
            subprocess.Popen(
                [
                    PY,
                    "-m",
                    "celery",
                    "-A",
                    "researchapp",
                    "worker",
                    "--loglevel",
                    "INFO",
                    "--concurrency",
                    "2",
                    "--queues",
                    "celery,judge",
                    "--hostname",
                    "evidence@%h",
                ],
                cwd=ROOT,
            )
        )
        processes.append(
            subprocess.Popen(
                [
                    PY,
                    "-m",
                    "uvicorn",
                    "researchapp.asgi:application",
                    "--host",
                    WEB_HOST,
                    "--port",
                    str(WEB_PORT),
                    "--log-level",
                    "warning",
                ],
                cwd=ROOT,
            )
        )
        print(f"\nEvidence desk is running at http://{WEB_HOST}:{WEB_PORT}/  (log in as demo / demo-password)")
        print(f"Health: http://{WEB_HOST}:{WEB_PORT}/health · API docs: http://{WEB_HOST}:{WEB_PORT}/api/docs")
        print("Press Ctrl-C to stop everything.\n", flush=True)
        while all(process.poll() is None for process in processes):
            time.sleep(0.5)
        # Ctrl-C reaches the children first (same process group); only a lone crash deserves a warning.
        time.sleep(0.3)
        print("a process exited: stopping the rest", file=sys.stderr)
    except KeyboardInterrupt:
        print("\nstopping...", flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stop(processes)
        subprocess.run([PY, "scripts/services.py", "down"], cwd=ROOT)


if __name__ == "__main__":
    main()
