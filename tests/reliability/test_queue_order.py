"""A free worker process takes System 1's batches first, then runs and files, and background preparation only when
nothing else waits (settings' queue_order_strategy with scripts/run.py's queue order), on the real Redis broker."""

from __future__ import annotations

import uuid

import kombu
import pytest

from researchapp.celery import app
from scripts.run import QUEUES

pytestmark = pytest.mark.services


def test_the_shipped_worker_lists_batches_then_runs_and_files_then_preparation() -> None:
    assert QUEUES.split(",") == ["judge", "celery", "prepare"]  # the defaults, in the order taken


def test_a_free_worker_takes_the_first_queue_with_work_not_the_next_in_turn() -> None:
    token = uuid.uuid4().hex[:8]
    judge, task, prepare = (f"{name}-order-{token}" for name in QUEUES.split(","))
    got: list[str] = []
    with app.connection_for_write() as connection:
        queues = [kombu.Queue(name, routing_key=name) for name in (judge, task, prepare)]
        producer = connection.Producer()
        try:
            # Preparation queued first, as an upload's first files leave it behind them.
            for name in (prepare, prepare, task, task, judge):
                producer.publish({"queue": name}, routing_key=name, declare=queues)

            def take(body: dict, message: kombu.Message) -> None:
                got.append(body["queue"])
                message.ack()

            with connection.Consumer(queues, callbacks=[take]):
                while len(got) < 5:
                    connection.drain_events(timeout=5)
        finally:
            for queue in queues:
                queue(connection.default_channel).delete()
    # Round robin (kombu's default) would give judge, task, prepare, task, prepare.
    assert got == [judge, task, task, prepare, prepare]
