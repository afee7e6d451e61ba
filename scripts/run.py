"""`make run`: start the services, migrate, load the demo, then run web + worker in the foreground.

    python scripts/run.py            everything, supervised (what `make run` does)
    python scripts/run.py worker     only the Celery worker, as `make run` starts it (docker-compose uses this)
    python scripts/run.py web        migrate, then only the web server (the Docker image's command)

The command lines of the worker and the web server are defined once, here: `make run`, docker-compose and the
journey tests (tests/journeys) all start them through these functions. A worker that dies is restarted (the web
server, Postgres and Redis stay up and the log says what happened); Ctrl-C stops everything this script started.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
STARTED = time.monotonic()
WEB_HOST = os.environ.get("EVIDENCE_HOST", "127.0.0.1")
WEB_PORT = int(os.environ.get("EVIDENCE_PORT", "8000"))
WORKER_POOL = os.environ.get("EVIDENCE_WORKER_POOL", "prefork")
WORKER_CONCURRENCY = int(os.environ.get("EVIDENCE_WORKER_CONCURRENCY", "2"))
RESTART_WINDOW_S = 60.0
MAX_RESTARTS_PER_WINDOW = 5
START_WAIT_S = float(os.environ.get("EVIDENCE_START_WAIT_S", "180"))  # for /health to say 200 before the banner
# Celery warns a worker started as root. It takes only JSON messages (its default; never pickle), so a message
# cannot make it run anything but the app's own tasks; `make run` started as root says so once instead.
ROOT_WARNING = "ignore:You're running the worker with superuser privileges:Warning"


# The queues System 1's batches (EVIDENCE_JUDGE_QUEUE), runs and files (EVIDENCE_TASK_QUEUE) and the background
# preparation of papers for reading (EVIDENCE_PREPARE_QUEUE) are sent to, in the order a free worker process takes
# them (settings: queue_order_strategy "priority"): a run waiting on its batches first, preparation only when
# nothing else waits.
QUEUES = ",".join(
    os.environ.get(f"EVIDENCE_{name}_QUEUE", default)
    for name, default in (("JUDGE", "judge"), ("TASK", "celery"), ("PREPARE", "prepare"))
)


def worker_command(python: str = PY, pool: str = WORKER_POOL, queues: str = QUEUES,
                   hostname: str = "evidence@%h") -> list[str]:
    """The Celery worker as the app ships it: prefork pool, the default and System 1 queues."""
    quiet_root = ["-W", ROOT_WARNING] if running_as_root() else []
    return [
        python, *quiet_root, "-m", "celery", "-A", "researchapp", "worker",
        "--pool", pool,
        "--concurrency", str(WORKER_CONCURRENCY),
        "--queues", queues,
        "--hostname", hostname,
        "--loglevel", "INFO",
    ]  # fmt: skip


def web_command(python: str = PY, host: str = WEB_HOST, port: int = WEB_PORT) -> list[str]:
    """The ASGI web server (pages, API, event streams)."""
    return [python, "-m", "uvicorn", "researchapp.asgi:application", "--host", host, "--port", str(port),
            "--log-level", "warning"]


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def step(args: list[str]) -> None:
    result = subprocess.run(args, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(result.returncode)


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((WEB_HOST, port)) != 0


def log(message: str) -> None:
    print(f"[make run] {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


class Supervised:
    """A child process that is started again when it exits on its own, at most a few times a minute."""

    def __init__(self, name: str, command: Callable[[], list[str]]) -> None:
        self.name, self.command = name, command
        self.restarts: list[float] = []
        self.gave_up = False
        self.process = self.start()

    def start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(self.command(), cwd=ROOT)

    def check(self) -> bool:
        """Restart the process if it died; False when it keeps dying (then everything stops)."""
        code = self.process.poll()
        if code is None:
            return True
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < RESTART_WINDOW_S]
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        if len(self.restarts) >= MAX_RESTARTS_PER_WINDOW:
            log(f"the {self.name} {how} and has restarted {len(self.restarts)} times in the last minute: giving up")
            self.gave_up = True
            return False
        log(f"the {self.name} {how}: restarting it (the other processes keep running)")
        self.restarts.append(now)
        self.process = self.start()
        return True

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def wait(self, deadline: float) -> None:
        try:
            self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_reader_install() -> subprocess.Popen[bytes] | None:
    """Install the local reader in the background when it is missing (EVIDENCE_READER=local, the default): the app
    answers with the extractive reader until it is ready, and says so; progress goes to this console."""
    if os.environ.get("EVIDENCE_READER", "local") != "local":
        return None
    check = subprocess.run([PY, "scripts/install_reader.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    if check.returncode == 0:
        return None
    log(f"the local reader is not installed ({check.stdout.strip()}): installing it in the background")
    return subprocess.Popen([PY, "scripts/install_reader.py"], cwd=ROOT)


def health_state(url: str, timeout: float = 4.0) -> tuple[int | None, dict]:
    """GET /health: its HTTP status and JSON body; (None, {}) while nothing answers on the port."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:  # 503: the web server is up, a service or the worker not yet
        try:
            return error.code, json.loads(error.read())
        except ValueError:
            return error.code, {}
    except (OSError, ValueError):
        return None, {}


def not_ready(status: int | None, body: dict) -> str:
    """Say in words what /health does not yet report as ok."""
    if status is None:
        return "the web server does not answer"
    failing = [name for name, check in body.get("checks", {}).items() if check.get("status") != "ok"]
    return f"not ok: {', '.join(failing)}" if failing else f"/health answers {status}"


def wait_until_healthy(url: str, children: list[Supervised], limit_s: float, poll_s: float = 0.25) -> str | None:
    """Supervise the children until /health answers 200 (database, broker and a live worker); None then, else why not.

    The banner follows this, so the app it announces answers questions: the worker takes a few seconds to start.
    """
    deadline = time.monotonic() + limit_s
    while True:
        if not all(child.check() for child in children):
            return next(f"the {c.name} keeps exiting" for c in children if c.gave_up)
        status, body = health_state(url)
        if status == 200:
            return None
        if time.monotonic() > deadline:
            return not_ready(status, body)
        time.sleep(poll_s)


def _interrupt(*_args: object) -> None:
    raise KeyboardInterrupt


def serve() -> None:
    if not port_free(WEB_PORT):
        log(f"error: port {WEB_PORT} is already in use: stop that program or set EVIDENCE_PORT to a free port.")
        sys.exit(1)
    step([PY, "scripts/services.py", "up"])
    children: list[Supervised] = []
    installer: subprocess.Popen[bytes] | None = None
    signal.signal(signal.SIGTERM, _interrupt)  # `kill PID` stops everything as Ctrl-C does
    # Ctrl-C stops everything even where the shell that started us ignores SIGINT (a job started with `&`): else the
    # children, which handle it, would exit on it and be restarted here as if they had crashed.
    signal.signal(signal.SIGINT, _interrupt)
    try:
        step([PY, "manage.py", "migrate", "--noinput", "-v", "0"])
        step([PY, "manage.py", "prepare_static"])  # the compressed copies the web server sends, when out of date
        step([PY, "manage.py", "reembed"])  # collections made with an older embedding model, with a progress bar
        step([PY, "manage.py", "load_demo"])
        installer = start_reader_install()
        if running_as_root():
            log("the worker runs as root, as this script does; it takes only JSON messages, so Celery's warning "
                "about root is left out (run `make run` as an ordinary user to avoid root)")
        children.append(Supervised("worker", worker_command))
        children.append(Supervised("web server", web_command))
        url = f"http://{WEB_HOST}:{WEB_PORT}"
        missing = wait_until_healthy(f"{url}/health", children, START_WAIT_S)
        if any(child.gave_up for child in children):
            return
        if missing:
            log(f"not healthy after {START_WAIT_S:.0f} s ({missing}): see {url}/health")
        print(f"\nEvidence desk is running at {url}/  (log in as demo / demo-password; ready in "
              f"{time.monotonic() - STARTED:.0f} s)")
        print(f"Health: {url}/health · API docs: {url}/api/docs")
        print("Press Ctrl-C to stop everything.\n", flush=True)
        while all(child.check() for child in children):
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("\nstopping...", flush=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if installer is not None and installer.poll() is None:
            installer.terminate()  # an unfinished install resumes at the next `make run` (a compile keeps nothing)
        for child in children:
            child.stop()
        deadline = time.monotonic() + 15
        for child in children:
            child.wait(deadline)
        subprocess.run([PY, "scripts/services.py", "down"], cwd=ROOT)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "all"
    if mode == "worker":
        os.execv(PY, worker_command())
    elif mode == "web":
        step([PY, "manage.py", "migrate", "--noinput", "-v", "0"])
        os.execv(PY, web_command(host=os.environ.get("EVIDENCE_HOST", "0.0.0.0")))
    elif mode == "all":
        serve()
    else:
        sys.exit(f"error: unknown mode {mode!r}: use no argument, 'worker' or 'web'")


if __name__ == "__main__":
    main()
