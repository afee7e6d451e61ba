"""The health endpoint: open to all, JSON, 200 when every service is ok and 503 otherwise."""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ..health import run_checks
from ..reader import status as reader_status


@login_not_required
@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    checks = run_checks()
    healthy = all(check["status"] == "ok" for check in checks.values())
    # The reader is reported apart: without the model the app still answers (with the extractive reader).
    body = {"status": "ok" if healthy else "error", "checks": checks, "reader": reader_status().as_dict()}
    return JsonResponse(body, status=200 if healthy else 503)


@login_not_required
@never_cache
@require_GET
def live(request: HttpRequest) -> JsonResponse:
    """Liveness: the web process answers; no service is asked (use /health for those)."""
    return JsonResponse({"status": "ok"})
