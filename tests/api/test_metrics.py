"""Prometheus metrics at /metrics: request counts by route, run statuses and durations, spend, judgments, queues."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import Client
from django.utils import timezone

from evidence.logging import JsonFormatter, bind
from evidence.models import Judgment, ModelCall, Run
from tests.api.helpers import finished_run

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def with_middleware(settings):
    settings.MIDDLEWARE = ["evidence.middleware.MetricsMiddleware", *settings.MIDDLEWARE]


def scrape(**headers) -> str:
    response = Client(**headers).get("/metrics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def value(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{line_start} not in metrics:\n{text}")


def test_it_counts_requests_by_route_template(api, run):
    api.get(f"/api/runs/{run.pk}")
    api.get(f"/api/runs/{run.pk}")
    text = scrape()
    assert value(text, 'evidence_http_requests_total{method="GET",route="api/runs/<run_id>",status="200"}') >= 2
    assert 'evidence_http_request_duration_seconds_bucket{le="0.005",method="GET",route="api/runs/<run_id>"}' in text


def test_it_reports_runs_durations_spend_and_judgments(user, collection, document):
    run = finished_run(user, collection, document)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timezone.timedelta(seconds=7),
                                         spent_usd=0.5)
    ModelCall.objects.create(run=run, request_hash="h", provider="openai", model="gpt-4o-mini", cost_usd=0.25,
                             input_tokens=100, output_tokens=10)
    ModelCall.objects.create(run=run, request_hash="h", provider="openai", model="gpt-4o-mini", error="500",
                             attempt=2)
    Judgment.objects.create(run=run, document=document, goal="g", kind="noul", start=0, end=5, probabilities=[0.9])
    text = scrape()
    assert value(text, 'evidence_runs_finished_total{status="answered"}') == 1
    assert value(text, 'evidence_runs{status="answered"}') == 1
    assert value(text, 'evidence_run_duration_seconds_bucket{le="10.0",status="answered"}') == 1
    assert value(text, 'evidence_run_duration_seconds_bucket{le="5.0",status="answered"}') == 0
    assert value(text, 'evidence_model_calls_total{model="gpt-4o-mini",outcome="error",provider="openai"}') == 1
    assert value(text, 'evidence_model_spend_usd_total{model="gpt-4o-mini",provider="openai"}') == 0.25
    assert value(text, "evidence_run_spend_usd_total") == 0.5
    assert value(text, 'evidence_judgments_total{kind="noul",provider="local"}') == 1
    assert value(text, "evidence_broker_up") == 1
    assert 'evidence_queue_depth{queue="celery"}' in text


def test_it_needs_no_login_but_refuses_non_loopback_clients():
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 403
    assert Client().get("/metrics").status_code == 200  # the test client is 127.0.0.1


def test_a_token_when_set_is_required(settings):
    settings.EVIDENCE_METRICS_TOKEN = "s3cret"
    assert Client().get("/metrics").status_code == 403
    assert "evidence_runs" in scrape(HTTP_AUTHORIZATION="Bearer s3cret")


def test_responses_carry_a_request_id(api):
    response = api.get("/api/runs", HTTP_X_REQUEST_ID="abc-123")
    assert response["X-Request-ID"] == "abc-123"
    assert len(api.get("/api/runs")["X-Request-ID"]) == 16


def test_json_logs_carry_the_bound_ids_and_extras():
    record = logging.LogRecord("evidence.agent.loop.research", logging.WARNING, __file__, 1, "run %s slow", (7,), None)
    record.stage = "search"
    with bind(run_id=7, request_id="r1"):
        line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert entry["message"] == "run 7 slow" and entry["level"] == "WARNING"
    assert entry["logger"] == "evidence.agent.loop.research"
    assert entry["run_id"] == 7 and entry["request_id"] == "r1" and entry["stage"] == "search"
    assert "time" in entry and "\n" not in line
    assert "run_id" not in json.loads(JsonFormatter().format(record))


def test_task_signals_tag_a_workers_lines_with_the_run_id():
    from evidence.logging import _task_ended, _task_started

    class Task:
        name = "evidence.run_research"

    _task_started(task_id="t1", task=Task(), args=(42,))
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "step", (), None)
    assert json.loads(JsonFormatter().format(record))["run_id"] == 42
    _task_ended()
    assert "run_id" not in json.loads(JsonFormatter().format(record))
