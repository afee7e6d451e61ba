"""A real Celery task goes through Redis to a worker that writes to Postgres; health sees all services."""

from __future__ import annotations

import pytest

from evidence.models import RunEvent
from evidence.tasks import record_event

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_it_runs_a_task_through_the_broker_and_writes_a_row(celery_worker, run):
    seq = record_event.delay(run.pk, "note", {"text": "from the worker"}).get(timeout=20)
    event = RunEvent.objects.get(run=run, seq=seq)
    assert event.payload == {"text": "from the worker"}


def test_it_reports_every_service_healthy(celery_worker, client):
    response = client.get("/health")
    body = response.json()
    assert response.status_code == 200, body
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "database": "ok",
        "vector": "ok",
        "broker": "ok",
        "worker": "ok",
    }
    assert body["checks"]["vector"]["detail"].startswith("pgvector 0.8")
