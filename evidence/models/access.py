"""Ways in without a session: hashed API keys and secret Pi-Serini backend URLs."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .documents import Collection


class ApiKey(models.Model):
    """A per-user API key: shown once at creation, stored as a SHA-256 hash; `prefix` identifies it in lists."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    key_hash = models.CharField(max_length=64, unique=True)
    rate_per_minute = models.PositiveIntegerField(default=120)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class PiseriniBackend(models.Model):
    """A secret URL serving one collection in Pi-Serini's http-json shape; only its token's SHA-256 is stored.

    Pi-Serini's adapter sends no headers, so the token in the path is the credential (like an API key).
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="piserini_backends")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="piserini_backends")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
