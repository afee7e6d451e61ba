"""Wrong configuration stops with one clear sentence, not a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from researchapp.env import database_from_url, env_bool, env_int

ROOT = Path(__file__).resolve().parents[2]


def run_script(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    merged = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL"}}
    merged.update(env)
    return subprocess.run(args, cwd=ROOT, env=merged, capture_output=True, text=True, timeout=60)


def test_it_explains_an_unreachable_database_url():
    result = run_script(
        [sys.executable, "scripts/services.py", "up"], DATABASE_URL="postgresql://nobody@127.0.0.1:9/evidence"
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Cannot reach the database at DATABASE_URL (127.0.0.1:9" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_it_explains_a_busy_port(tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        result = run_script(
            [sys.executable, "scripts/services.py", "up"],
            PG_PORT=str(port),
            EVIDENCE_DATA_DIR=str(tmp_path),
        )
    assert result.returncode == 1
    assert f"Port {port} is already used by another program: set PG_PORT to a free port" in result.stderr
    assert "Traceback" not in result.stderr


def test_it_explains_a_missing_python(tmp_path):
    result = run_script(["bash", "scripts/find-python.sh"], PATH="/usr/bin:/bin", EVIDENCE_PYTHON="")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: no Python 3.12 or newer found (Django 6 needs it): install one (for example 'pyenv install 3.12') "
        "or set EVIDENCE_PYTHON to its path."
    )


def test_it_finds_a_python_312_or_newer():
    result = run_script(["bash", "scripts/find-python.sh"])
    assert result.returncode == 0
    version = subprocess.run([result.stdout.strip(), "--version"], capture_output=True, text=True).stdout
    major, minor = (int(part) for part in version.split()[1].split(".")[:2])
    assert (major, minor) >= (3, 12)


def test_it_refuses_a_non_postgres_database_url():
    with pytest.raises(ImproperlyConfigured, match="needs PostgreSQL with pgvector"):
        database_from_url("sqlite:///db.sqlite3")


def test_it_parses_a_database_url():
    entry = database_from_url("postgresql://u%40x:p%2F@db.example:6543/research")
    assert (entry["USER"], entry["PASSWORD"], entry["HOST"], entry["PORT"], entry["NAME"]) == (
        "u@x",
        "p/",
        "db.example",
        "6543",
        "research",
    )


def test_it_refuses_bad_numbers_and_booleans(monkeypatch):
    monkeypatch.setenv("EVIDENCE_X", "ten")
    with pytest.raises(ImproperlyConfigured, match="EVIDENCE_X='ten' is not a whole number"):
        env_int("EVIDENCE_X", 1)
    monkeypatch.setenv("EVIDENCE_X", "maybe")
    with pytest.raises(ImproperlyConfigured, match="not a boolean"):
        env_bool("EVIDENCE_X", True)


def test_it_explains_a_bad_setting_at_manage_py_start():
    result = run_script([sys.executable, "manage.py", "check"], EVIDENCE_RUN_BUDGET_S="soon")
    assert result.returncode != 0
    assert "EVIDENCE_RUN_BUDGET_S='soon' is not a number" in result.stderr
