"""One fault each, on the shipped prefork worker: a database outage longer than the tasks' retries, a Redis crash
with queued work, a worker killed in the middle of a parse. Each ends with nothing stuck and nothing lost."""

from __future__ import annotations

import random
import time
import uuid

import psutil
import pytest
from django.conf import settings as django_settings

from evidence.ingest import jobs
from evidence.models import Document, IngestFile, IngestJob, Run
from evidence.tasks import ingest_file, run_research
from tests.ingesting import ingest_now
from tests.reliability.tcp_proxy import Proxy
from tests.reliability.test_fault_worker import wait_for
from tests.reliability.test_redis_durable import free_port, kill, services, start
from tests.reliability.workers import Worker, database_url, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.services]

FAST_REAPER = {"EVIDENCE_REAP_EVERY_S": "1", "EVIDENCE_RESEND_AFTER_S": "1", "EVIDENCE_FILE_STALE_AFTER_S": "4"}
NOTES = {
    f"note-{n}.md": f"# Note {n}\n\nCaffeine trial {n} delayed sleep onset by {n + 10} minutes.\n".encode()
    for n in range(4)
}


@pytest.fixture
def env(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"
    return {"EVIDENCE_UPLOAD_DIR": str(tmp_path / "uploads")}


def seeded(collection):
    ingest_now(collection, [("seed.md", b"# Seed\n\nCaffeine and sleep are related in many trials.\n")], embed=False)
    return Run.objects.create(
        owner=collection.owner,
        collection=collection,
        question="Does caffeine delay sleep?",
        system="single_pass",
        config={"searcher": "bm25"},
    )


def test_a_database_outage_longer_than_the_retries_ends_every_file_and_run(collection, env, tmp_path):
    run = seeded(collection)
    job = jobs.create_job(collection, list(NOTES.items()))
    proxy = Proxy(int(django_settings.DATABASES["default"].get("PORT") or 5432))
    url = database_url().replace(f":{django_settings.DATABASES['default']['PORT']}/", f":{proxy.port}/")
    queue = f"evidence-pg-{uuid.uuid4().hex[:8]}"
    worker = Worker(
        queue,
        tmp_path / "worker.log",
        tmp_path,
        # A lost worker is not what this test is about: a 3 s stale window would take a run whose first step
        # loads the embedding model on a busy machine as lost (the reaper then races the run's own end).
        {**env, **FAST_REAPER, "DATABASE_URL": url, "EVIDENCE_INGEST_RETRIES": "2", "EVIDENCE_RUN_STALE_AFTER_S": "60"},
        pool="prefork",
    )
    try:
        worker.wait_ready()
        proxy.cut()  # the worker's database is gone
        outage_started = time.monotonic()
        for record in IngestFile.objects.filter(job=job):
            ingest_file.apply_async((record.pk,), queue=queue)
        run_research.apply_async((run.pk,), queue=queue)
        wait_for(
            lambda: (
                "MaxRetriesExceededError" in worker.log_path.read_text(errors="replace")
                or "Retry in" in worker.log_path.read_text(errors="replace")
            ),
            60,
            "the tasks to retry",
        )
        time.sleep(max(0.0, 15 - (time.monotonic() - outage_started)))  # past the 1 + 2 s retry budget
        assert IngestJob.objects.get(pk=job.pk).status not in IngestJob.FINISHED
        proxy.mend()
        back = time.monotonic()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 90, "the job to end")
        wait_for(lambda: Run.objects.get(pk=run.pk).is_finished, 60, "the run to end")
        job.refresh_from_db()
        assert (job.status, job.documents_added) == ("done", 4)
        assert Run.objects.get(pk=run.pk).status == Run.Status.ANSWERED
        print(
            f"database outage of {back - outage_started:.0f} s: everything ended {time.monotonic() - back:.1f} s "
            "after it came back"
        )
    finally:
        worker.stop()
        proxy.close()
        purge(queue)


def test_with_the_shipped_settings_everything_ends_soon_after_a_database_outage(collection, env, tmp_path):
    """The recovery bound: files and runs in flight when Postgres goes away for 40 s all end within 2 minutes of
    its return, under the shipped retry, heartbeat and stale settings; that includes a run whose first try had
    claimed it just before the outage (its retry waits until the run's heartbeat is old enough to be its own)."""
    from django.utils import timezone

    queued_run = seeded(collection)
    claimed_run = Run.objects.create(
        owner=collection.owner, collection=collection, question="Is caffeine related to sleep?",
        system="single_pass", config={"searcher": "bm25"},
    )  # fmt: skip
    job = jobs.create_job(collection, list(NOTES.items()))
    proxy = Proxy(int(django_settings.DATABASES["default"].get("PORT") or 5432))
    url = database_url().replace(f":{django_settings.DATABASES['default']['PORT']}/", f":{proxy.port}/")
    queue = f"evidence-pg-{uuid.uuid4().hex[:8]}"
    shipped = {"EVIDENCE_RUN_STALE_AFTER_S": "180"}  # the worker settings' short test window, back to the default
    worker = Worker(queue, tmp_path / "worker.log", tmp_path, {**env, **shipped, "DATABASE_URL": url}, pool="prefork")
    try:
        worker.wait_ready()
        # The second run's first try claimed it and then lost the database: it is running, beating until now.
        Run.objects.filter(pk=claimed_run.pk).update(
            status=Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
        )
        proxy.cut()
        outage_started = time.monotonic()
        for record in IngestFile.objects.filter(job=job):
            ingest_file.apply_async((record.pk,), queue=queue)
        run_research.apply_async((queued_run.pk,), queue=queue)
        run_research.apply_async((claimed_run.pk,), queue=queue, retries=1)  # the retry of that first try
        wait_for(lambda: "Retry in" in worker.log_path.read_text(errors="replace"), 60, "the tasks to retry")
        time.sleep(max(0.0, 40 - (time.monotonic() - outage_started)))
        proxy.mend()
        back = time.monotonic()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 120, "the job to end")
        wait_for(lambda: Run.objects.get(pk=queued_run.pk).is_finished, 120 - (time.monotonic() - back), "run 1")
        wait_for(lambda: Run.objects.get(pk=claimed_run.pk).is_finished, 120 - (time.monotonic() - back), "run 2")
        job.refresh_from_db()
        assert (job.status, job.documents_added) == ("done", 4)
        for run in (queued_run, claimed_run):
            run.refresh_from_db()
            assert run.status == Run.Status.ANSWERED, (run.pk, run.status, run.error)
        print(f"database outage of {back - outage_started:.0f} s: all ended {time.monotonic() - back:.1f} s after")
    finally:
        worker.stop()
        proxy.close()
        purge(queue)


def test_queued_files_and_runs_survive_a_redis_crash(collection, env, tmp_path):
    svc = services()
    port = free_port()
    pid = start(svc, port, tmp_path)
    broker = f"redis://127.0.0.1:{port}/0"
    run = seeded(collection)
    job = jobs.create_job(collection, list(NOTES.items()))
    queue = f"evidence-redis-{uuid.uuid4().hex[:8]}"
    worker = None
    try:
        with ingest_file.app.connection_for_write(broker) as connection:
            for record in IngestFile.objects.filter(job=job):
                ingest_file.apply_async((record.pk,), queue=queue, connection=connection)
            run_research.apply_async((run.pk,), queue=queue, connection=connection)
        time.sleep(1.5)  # the append-only file is fsync'd every second
        kill(pid)
        pid = start(svc, port, tmp_path)
        # The reaper's resend is set far away: only messages that survived the crash can finish this in time.
        worker = Worker(
            queue,
            tmp_path / "worker.log",
            tmp_path,
            {**env, "REDIS_URL": broker, "EVIDENCE_RESEND_AFTER_S": "600"},
            pool="prefork",
        )
        worker.wait_ready()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 90, "the job to end")
        wait_for(lambda: Run.objects.get(pk=run.pk).is_finished, 60, "the run to end")
        assert IngestJob.objects.get(pk=job.pk).status == "done"
        assert Document.objects.filter(collection=collection).count() == 5
        assert Run.objects.get(pk=run.pk).status == Run.Status.ANSWERED
    finally:
        if worker is not None:
            worker.stop()
        kill(pid)


def long_pdf(pages: int) -> bytes:
    from tests.ingest.pdfgen import make_pdf, text_line

    words = [
        "caffeine",
        "sleep",
        "adenosine",
        "receptor",
        "walking",
        "memory",
        "hippocampus",
        "volume",
        "trial",
        "diet",
    ]
    rng = random.Random(7)
    return make_pdf(
        [
            [text_line(72, 720 - 14 * i, " ".join(rng.choice(words) for _ in range(12))) for i in range(48)]
            for _ in range(pages)
        ]
    )


def test_a_worker_killed_mid_parse_leaves_no_parse_process_and_the_file_ends(collection, env, tmp_path):
    job = jobs.create_job(collection, [("long.pdf", long_pdf(120))])
    record = IngestFile.objects.get(job=job)
    queue = f"evidence-parse-{uuid.uuid4().hex[:8]}"
    first = Worker(queue, tmp_path / "worker-1.log", tmp_path, {**env, **FAST_REAPER}, pool="prefork")
    second = None
    try:
        first.wait_ready()
        ingest_file.apply_async((record.pk,), queue=queue)
        wait_for(lambda: IngestFile.objects.filter(pk=record.pk, status="parsing").exists(), 60, "the parse")
        time.sleep(1.0)
        parsers = [
            p for p in psutil.Process(first.pid).children(recursive=True) if "parse_worker" in " ".join(p.cmdline())
        ]
        assert parsers, "the parse runs in a parse process"
        # SIGKILL the worker and its pool, but not the parse process: it must notice and end by itself.
        for process in [psutil.Process(first.pid), *psutil.Process(first.pid).children(recursive=True)]:
            if process not in parsers:
                process.kill()
        first.process.wait(10)
        assert IngestFile.objects.get(pk=record.pk).status == "parsing", "killed mid-parse"
        wait_for(
            lambda: not [p for p in parsers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE],
            10,
            "the orphaned parse process to end",
        )
        # The second worker allows 1 s per parse: the file cannot be parsed there, and must say so.
        second = Worker(
            queue,
            tmp_path / "worker-2.log",
            tmp_path,
            {**env, **FAST_REAPER, "EVIDENCE_PARSE_TIMEOUT_S": "1"},
            pool="prefork",
        )
        second.wait_ready()
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED, 60, "the job to end")
        record.refresh_from_db()
        assert record.attempts == 2 and record.status == "failed"
        assert record.error == "long.pdf took longer than 1 s to parse and was stopped.", record.error
        assert not Document.objects.filter(collection=collection).exists(), "no half document"
    finally:
        first.stop()
        if second is not None:
            second.stop()
        purge(queue)
