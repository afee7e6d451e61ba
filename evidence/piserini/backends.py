"""Secret Pi-Serini backend URLs: created once (the token shown then only), stored hashed, verified, revoked.

Pi-Serini's shipped `http-json` adapter sends only `content-type`, so the credential has to live in the URL:
`/api/piserini/b/<token>/search`. The token names one collection of one owner, like an API key scoped to
that collection's search and read. By default only loopback clients may use it (the agent usually runs on
the same machine); `EVIDENCE_PISERINI_ALLOW_REMOTE=true` lifts that.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from ..models import Collection, PiseriniBackend
from ..retrieval import piserini

TOKEN_PREFIX = "pis_"
PREFIX_LENGTH = 12  # "pis_" + 8 random characters: tells URLs apart in a list, useless to an attacker
LAST_USED_RESOLUTION = timedelta(minutes=1)
URL_PATH = "/api/piserini/b/{token}/"


def hash_token(raw: str) -> str:
    """Return the SHA-256 hex digest a token is stored as."""
    return hashlib.sha256(raw.encode()).hexdigest()


def create_backend(collection: Collection, name: str = "") -> tuple[PiseriniBackend, str]:
    """Create a backend URL for the owner's collection; return the row and the token, which is never stored."""
    for _ in range(5):
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        try:
            with transaction.atomic():
                backend = PiseriniBackend.objects.create(
                    owner=collection.owner,
                    collection=collection,
                    name=name.strip()[:100] or "Pi-Serini",
                    prefix=raw[:PREFIX_LENGTH],
                    token_hash=hash_token(raw),
                )
            return backend, raw
        except IntegrityError:  # a prefix collision (1 in 64^8): draw again
            continue
    raise RuntimeError("could not draw a unique backend token prefix")


def verify_token(raw: str) -> PiseriniBackend | None:
    """Return the live backend for `raw` (owner and collection loaded), or None for unknown or revoked tokens."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    backend = (
        PiseriniBackend.objects.select_related("owner", "collection")
        .filter(token_hash=hash_token(raw), revoked_at__isnull=True)
        .first()
    )
    if backend is None or not backend.owner.is_active:
        return None
    now = timezone.now()
    if backend.last_used_at is None or now - backend.last_used_at > LAST_USED_RESOLUTION:
        PiseriniBackend.objects.filter(pk=backend.pk).update(last_used_at=now)
        backend.last_used_at = now
    return backend


def revoke_backend(owner: Any, backend_id: int) -> bool:
    """Revoke one of the owner's backend URLs; return whether a live one was revoked."""
    live = PiseriniBackend.objects.filter(pk=backend_id, owner=owner, revoked_at__isnull=True)
    return bool(live.update(revoked_at=timezone.now()))


def remote_allowed(request: HttpRequest) -> bool:
    """Return whether this client may use a secret backend URL (loopback always; others only when allowed)."""
    if settings.EVIDENCE_PISERINI_ALLOW_REMOTE:
        return True
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


def base_url(token: str, site: str) -> str:
    """Return the backend's base URL under `site` (e.g. http://127.0.0.1:8000)."""
    return site.rstrip("/") + URL_PATH.format(token=token)


def extension_config(backend: PiseriniBackend, token: str, site: str) -> dict[str, Any]:
    """Return the PI_SEARCH_EXTENSION_CONFIG object for Pi-Serini's `http-json` backend kind."""
    url = base_url(token, site)
    return {
        "backend": {
            "kind": "http-json",
            "capabilities": piserini.capabilities(backend.collection_id),
            "endpoints": {"searchUrl": url + "search", "readDocumentUrl": url + "read"},
        }
    }


def extension_config_json(backend: PiseriniBackend, token: str, site: str) -> str:
    return json.dumps(extension_config(backend, token, site), separators=(",", ":"))


def site_url(request: HttpRequest | None = None) -> str:
    """Return the site's base URL: EVIDENCE_SITE_URL, else the request's own, else the local default."""
    configured = settings.EVIDENCE_SITE_URL
    if configured:
        return configured
    if request is not None:
        return request.build_absolute_uri("/").rstrip("/")
    return "http://127.0.0.1:8000"
