"""API keys (created once, stored hashed, verified, revoked) and the API's authentication classes."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import HttpError
from ninja.security import APIKeyCookie, APIKeyHeader, HttpBearer
from ninja.utils import check_csrf

from .models import ApiKey
from .ratelimit import bucket_name, take
from .services import check_upload_size

KEY_PREFIX = "evd_"
PREFIX_LENGTH = 12  # "evd_" + 8 random characters: enough to tell keys apart in a list, useless to an attacker
LAST_USED_RESOLUTION = timedelta(minutes=1)  # write last_used_at at most once a minute per key


def hash_key(raw: str) -> str:
    """Return the SHA-256 hex digest a key is stored as."""
    return hashlib.sha256(raw.encode()).hexdigest()


def create_key(owner, name: str, rate_per_minute: int | None = None) -> tuple[ApiKey, str]:
    """Create a key for `owner`; return the row and the plaintext, which is never stored."""
    for _ in range(5):
        raw = KEY_PREFIX + secrets.token_urlsafe(32)
        fields = {
            "owner": owner,
            "name": name.strip()[:100] or "API key",
            "prefix": raw[:PREFIX_LENGTH],
            "key_hash": hash_key(raw),
        }
        if rate_per_minute:
            fields["rate_per_minute"] = rate_per_minute
        try:
            with transaction.atomic():
                return ApiKey.objects.create(**fields), raw
        except IntegrityError:  # a prefix collision (1 in 64^8): draw again
            continue
    raise RuntimeError("could not draw a unique API key prefix")


def verify_key(raw: str) -> ApiKey | None:
    """Return the live key matching `raw` (its owner loaded), or None for unknown or revoked keys."""
    if not raw.startswith(KEY_PREFIX) or len(raw) > 200:
        return None
    # The lookup is by hash, so timing reveals nothing about stored keys.
    key = ApiKey.objects.select_related("owner").filter(key_hash=hash_key(raw), revoked_at__isnull=True).first()
    if key is None or not key.owner.is_active:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key


def revoke_key(owner, key_id: int) -> bool:
    """Revoke one of the owner's keys; return whether a live key was revoked."""
    live = ApiKey.objects.filter(pk=key_id, owner=owner, revoked_at__isnull=True)
    return bool(live.update(revoked_at=timezone.now()))


def presented_key(request: HttpRequest) -> str | None:
    """Return the key sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`, if any."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    value = request.headers.get("X-API-Key", "").strip()
    return value or None


# ------------------------------------------------------------------ the API's authentication (django-ninja)


class RateLimited(Exception):
    """A key over its rate limit; the API answers 429 with Retry-After."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"Rate limit reached: retry in {retry_after_s} s.")
        self.retry_after_s = retry_after_s


def _limit(bucket: str, rate: int) -> None:
    decision = take(bucket, rate)
    if not decision.allowed:
        raise RateLimited(decision.retry_after_s)


def _authenticate_key(request: HttpRequest, raw: str | None):
    if not raw:
        return None
    key = verify_key(raw)
    if key is None:
        raise HttpError(401, "The API key is unknown or revoked.")
    # Named by hash, not id: a recreated database reuses ids, and a new key must not inherit an old bucket.
    _limit(bucket_name("key", key.key_hash[:24]), key.rate_per_minute)
    request.user = key.owner
    request.api_key = key  # type: ignore[attr-defined]
    return key.owner


class BearerKey(HttpBearer):
    """`Authorization: Bearer <key>`; it runs first, so it also refuses oversized bodies before anyone reads them."""

    def __call__(self, request: HttpRequest):
        check_upload_size(request)
        return super().__call__(request)

    def authenticate(self, request: HttpRequest, token: str):
        return _authenticate_key(request, token)


class HeaderKey(APIKeyHeader):
    """`X-API-Key: <key>`."""

    param_name = "X-API-Key"

    def authenticate(self, request: HttpRequest, key: str | None):
        return _authenticate_key(request, key)


class Session(APIKeyCookie):
    """A logged-in browser session; unsafe methods need the CSRF token (header X-CSRFToken)."""

    param_name = "sessionid"

    def __init__(self) -> None:
        super().__init__(csrf=False)  # checked below, only once we know there is a session: else 401, not 403

    def _get_key(self, request: HttpRequest) -> str | None:
        return request.COOKIES.get(self.param_name)

    def authenticate(self, request: HttpRequest, key: str | None):
        user = request.user
        if not user.is_authenticated:
            return None
        if check_csrf(request) is not None:
            raise HttpError(403, "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header.")
        rate = int(settings.EVIDENCE_API_SESSION_RATE_PER_MINUTE)
        _limit(bucket_name("user", f"{user.pk}-{user.date_joined.timestamp():.0f}"), rate)
        return user


API_AUTH = [BearerKey(), HeaderKey(), Session()]
