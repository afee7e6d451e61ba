"""Per-user quotas: active runs, runs per day, and the size of one upload request."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils import timezone

from ..models import Run


class QuotaExceeded(Exception):
    """A request over a user's quota; str() says what to do, `status` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 429) -> None:
        super().__init__(message)
        self.status = status


def max_active_runs() -> int:
    return int(settings.EVIDENCE_MAX_ACTIVE_RUNS_PER_USER)


def max_runs_per_day() -> int:
    return int(settings.EVIDENCE_MAX_RUNS_PER_DAY)


def max_upload_bytes() -> int:
    return int(settings.EVIDENCE_MAX_UPLOAD_BYTES)


def check_run_quota(user) -> None:
    """Raise QuotaExceeded if the user may not start another run now; call inside transaction.atomic()."""
    # Lock the user's row so two concurrent requests cannot both take the last free slot.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    runs = Run.objects.filter(owner=user)
    active = runs.filter(status__in=Run.ACTIVE_STATUSES).count()
    if active >= max_active_runs():
        raise QuotaExceeded(
            f"You have {active} runs queued or running (the limit is {max_active_runs()}): "
            "wait for one to finish or cancel one."
        )
    today = runs.filter(created_at__gte=timezone.now() - timedelta(days=1)).count()
    if today >= max_runs_per_day():
        raise QuotaExceeded(f"You started {today} runs in the last 24 hours (the limit is {max_runs_per_day()}).")


def check_upload_size(request: HttpRequest) -> None:
    """Refuse a request body over the upload limit from its Content-Length, before anything reads it."""
    length = request.META.get("CONTENT_LENGTH") or ""
    if length.isdecimal() and int(length) > max_upload_bytes():
        raise QuotaExceeded(
            f"The request body is {int(length)} bytes, over the limit of {max_upload_bytes()} bytes per "
            "request: send fewer files at once.",
            status=413,
        )
