"""Read settings from environment variables; a bad value stops start-up with a sentence saying what to fix."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str) -> str:
    """Return the variable's value, or the default when unset or empty."""
    return os.environ.get(name) or default


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    """Return the variable as an integer, refusing anything that is not one."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number: set it to one, or unset it.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below the minimum {minimum}: raise it, or unset it.")
    return value


def env_float(name: str, default: float) -> float:
    """Return the variable as a number, refusing anything that is not one."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number: set it to one, or unset it.") from None


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a boolean: 1/true/yes/on or 0/false/no/off."""
    raw = os.environ.get(name)
    if not raw:
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use true or false.")


def env_list(name: str, default: list[str]) -> list[str]:
    """Return a comma-separated variable as a list of trimmed, non-empty items."""
    raw = os.environ.get(name)
    if not raw:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str) -> dict[str, object]:
    """Turn a postgres:// URL into a Django DATABASES entry."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must start with postgres:// or postgresql:// (got {parts.scheme or 'nothing'}://): "
            "Evidence desk needs PostgreSQL with pgvector."
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database: add one, as in postgres://user@host:5432/evidence.")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        "CONN_MAX_AGE": 0,
        "OPTIONS": {"connect_timeout": 5},
    }


def stored_secret(path: Path) -> str:
    """Return the secret kept in `path`, generating a random one (readable by its owner only) on first use."""
    import secrets

    try:
        existing = path.read_text().strip()
    except FileNotFoundError:
        existing = ""
    except OSError as error:
        raise ImproperlyConfigured(
            f"cannot read {path} ({error}): set DJANGO_SECRET_KEY or fix its permissions."
        ) from error
    if existing:
        return existing
    secret = secrets.token_urlsafe(50)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secret + "\n")
    except FileExistsError:  # another process wrote it first: use theirs
        return path.read_text().strip()
    except OSError as error:
        raise ImproperlyConfigured(
            f"cannot write a secret key to {path} ({error}): set DJANGO_SECRET_KEY to a long random string."
        ) from error
    return secret
