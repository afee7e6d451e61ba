"""The one writer of a run's event stream: a gapless `seq` per run, and a NOTIFY for live listeners."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction

from ..models import RunEvent

CHANNEL = "evidence_run_events"


def emit(run_id: int, kind: str, payload: dict[str, Any] | None = None) -> RunEvent:
    """Append one event to the run's stream and notify listeners when the transaction commits."""
    clean_payload = json.loads(json.dumps(payload or {}, cls=DjangoJSONEncoder))
    with transaction.atomic(), connection.cursor() as cursor:
        # One statement takes the row lock and the next seq, so concurrent writers never share a seq.
        cursor.execute("UPDATE evidence_run SET last_seq = last_seq + 1 WHERE id = %s RETURNING last_seq", [run_id])
        row = cursor.fetchone()
        if row is None:
            raise ValueError(f"run {run_id} does not exist")
        event = RunEvent.objects.create(run_id=run_id, seq=row[0], kind=kind, payload=clean_payload)
        # Postgres delivers NOTIFY at commit, so a listener never sees an event it cannot read yet.
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{run_id}:{row[0]}"])
    return event


def events_after(run_id: int, after_seq: int, limit: int = 500) -> list[RunEvent]:
    """Return the run's events with seq greater than `after_seq`, in order."""
    return list(RunEvent.objects.filter(run_id=run_id, seq__gt=after_seq).order_by("seq")[:limit])
