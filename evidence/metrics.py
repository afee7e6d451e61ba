"""Prometheus metrics: HTTP counters from the middleware, and domain numbers read from the database at scrape.

Runs, model calls, spend and judgments are counted from their rows, so the numbers are right across every web
and worker process (a counter in one process would miss what the others did). Queue depth comes from Redis.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterator

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connection
from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from .models import IngestFile, Judgment, ModelCall, Run

log = logging.getLogger(__name__)

REGISTRY = CollectorRegistry()  # no auto_describe: describing the DB collector would query at import
HTTP_REQUESTS = Counter(
    "evidence_http_requests",
    "HTTP requests by method, route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
HTTP_LATENCY = Histogram(
    "evidence_http_request_duration_seconds",
    "HTTP request latency by route template.",
    ["method", "route"],
    registry=REGISTRY,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
RUN_DURATION_BUCKETS = (1, 5, 10, 30, 60, 120, 300, 600, 1800)
FINISHED = [s for s in Run.Status.values if s not in Run.ACTIVE_STATUSES]


def queue_names() -> list[str]:
    configured = settings.EVIDENCE_METRICS_QUEUES
    if configured:
        return list(configured)
    return sorted({"celery", settings.EVIDENCE_JUDGE_QUEUE})


class DatabaseCollector(Collector):
    """Collect run, model call, spend, judgment, ingestion and queue figures at scrape time."""

    def collect(self) -> Iterator:
        try:
            yield from self._runs()
            yield from self._model_calls()
            yield from self._judgments()
            yield from self._ingest()
        except DatabaseError as error:  # a scrape during a Postgres restart reports what it can
            log.warning("metrics: database unavailable: %s", error)
            up = GaugeMetricFamily("evidence_database_up", "Whether the metrics scrape could read the database.")
            up.add_metric([], 0)
            yield up
        yield from self._queues()

    def _runs(self) -> Iterator:
        by_status = GaugeMetricFamily("evidence_runs", "Runs by current status.", labels=["status"])
        counts = dict(Run.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        for status in Run.Status.values:
            by_status.add_metric([status], counts.get(status, 0))
        yield by_status
        ended = CounterMetricFamily("evidence_runs_finished", "Runs that ended, by end status.", labels=["status"])
        for status in FINISHED:
            ended.add_metric([status], counts.get(status, 0))
        yield ended
        yield self._durations()

    def _durations(self) -> HistogramMetricFamily:
        histogram = HistogramMetricFamily(
            "evidence_run_duration_seconds", "Duration of finished runs by end status.", labels=["status"]
        )
        cuts = ", ".join(f"count(*) FILTER (WHERE d <= {b})" for b in RUN_DURATION_BUCKETS)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT status, {cuts}, count(*), coalesce(sum(d), 0) FROM (SELECT status, "
                "extract(epoch FROM finished_at - started_at) AS d FROM evidence_run WHERE finished_at IS NOT NULL "
                "AND started_at IS NOT NULL) AS t GROUP BY status"
            )
            for status, *counts, total, seconds in cursor.fetchall():
                buckets = [(str(float(b)), n) for b, n in zip(RUN_DURATION_BUCKETS, counts, strict=False)]
                histogram.add_metric([status], [*buckets, ("+Inf", total)], float(seconds))
        return histogram

    def _model_calls(self) -> Iterator:
        calls = CounterMetricFamily(
            "evidence_model_calls", "Recorded model calls (each retry counts).", labels=["provider", "model", "outcome"]
        )
        spend = CounterMetricFamily(
            "evidence_model_spend_usd", "Model spend in US dollars.", labels=["provider", "model"]
        )
        tokens = CounterMetricFamily("evidence_model_tokens", "Model tokens.", labels=["provider", "model", "kind"])
        rows = ModelCall.objects.values("provider", "model").annotate(
            n=Count("id"),
            failed=Count("id", filter=~_no_error()),
            cost=Sum("cost_usd"),
            input=Sum("input_tokens"),
            output=Sum("output_tokens"),
        )
        for row in rows:
            labels = [row["provider"], row["model"]]
            calls.add_metric([*labels, "ok"], row["n"] - row["failed"])
            calls.add_metric([*labels, "error"], row["failed"])
            spend.add_metric(labels, float(row["cost"] or 0.0))
            tokens.add_metric([*labels, "input"], row["input"] or 0)
            tokens.add_metric([*labels, "output"], row["output"] or 0)
        run_spend = Run.objects.aggregate(total=Sum("spent_usd"))["total"] or 0.0
        total = CounterMetricFamily("evidence_run_spend_usd", "Spend recorded on runs, in US dollars.")
        total.add_metric([], float(run_spend))
        yield from (calls, spend, tokens, total)

    def _judgments(self) -> Iterator:
        judged = CounterMetricFamily("evidence_judgments", "System 1 judgments written.", labels=["kind", "provider"])
        for kind, provider, n in Judgment.objects.values_list("kind", "provider").annotate(n=Count("id")):
            judged.add_metric([kind, provider], n)
        yield judged
        since = timezone.now() - timezone.timedelta(minutes=1)
        recent = GaugeMetricFamily(
            "evidence_judgments_per_second", "Judgments written per second over the last minute."
        )
        recent.add_metric([], Judgment.objects.filter(created_at__gte=since).count() / 60.0)
        yield recent

    def _ingest(self) -> Iterator:
        files = GaugeMetricFamily("evidence_ingest_files", "Uploaded files by ingestion status.", labels=["status"])
        counts = dict(IngestFile.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        for status in IngestFile.Status.values:
            files.add_metric([status], counts.get(status, 0))
        yield files

    def _queues(self) -> Iterator:
        from .ratelimit import connect

        depth = GaugeMetricFamily("evidence_queue_depth", "Tasks waiting in each Celery queue.", labels=["queue"])
        up = GaugeMetricFamily("evidence_broker_up", "Whether the metrics scrape could read the broker.")
        try:
            client = connect(settings.CELERY_BROKER_URL)
            for queue in queue_names():
                # Celery's Redis transport keeps one list per priority step: "q" and "q\x06\x16<n>".
                names = [queue, *(f"{queue}\x06\x16{p}" for p in range(1, 10))]
                depth.add_metric([queue], sum(client.llen(name) for name in names))
            up.add_metric([], 1)
        except Exception as error:
            log.warning("metrics: broker unavailable: %s", error)
            up.add_metric([], 0)
        yield depth
        yield up


def _no_error():
    from django.db.models import Q

    return Q(error="")


REGISTRY.register(DatabaseCollector())


def allowed(request: HttpRequest) -> bool:
    """Tell whether a scrape may read the metrics: the bearer token if one is set, else loopback clients only."""
    token = settings.EVIDENCE_METRICS_TOKEN
    if token:
        import hmac

        return hmac.compare_digest(request.headers.get("Authorization", ""), f"Bearer {token}")
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@login_not_required  # Prometheus has no session; the token or loopback rule guards it instead
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        return HttpResponse(
            "Forbidden: send the metrics token (Authorization: Bearer ...).\n", status=403, content_type="text/plain"
        )
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
