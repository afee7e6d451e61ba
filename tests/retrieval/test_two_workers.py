"""Two workers that share only Postgres and Redis (a data folder each): one index, one version sequence.

The second worker searches a collection the first ingested, keeps searching while the first ingests more, and an
upload spread over both ends with one complete index. Both run the shipped prefork command line.
"""

from __future__ import annotations

import itertools
import time
import uuid

import pytest

from evidence.ingest import jobs
from evidence.models import Document, IndexSegment, IngestJob, Run
from evidence.retrieval import index_store
from evidence.tasks import ingest_file, run_research
from tests.reliability.workers import Worker, purge

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

FIRST = {
    "caffeine.md": b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors and delays sleep onset.\n",
    "walking.md": b"# Walking and memory\n\nA year of walking increased hippocampal volume in older adults.\n",
}
MORE = {f"note{n}.md": f"# Note {n}\n\nTopic{n} trial of melatonin dose {n} and sleep quality.\n".encode()
        for n in range(6)}  # fmt: skip


def wait_for(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def finished(job: IngestJob) -> bool:
    return IngestJob.objects.get(pk=job.pk).status in IngestJob.FINISHED


def ask(collection, queue: str, question: str) -> Run:
    run = Run.objects.create(owner=collection.owner, collection=collection, question=question, system="single_pass",
                             config={"searcher": "bm25"})  # fmt: skip
    run_research.apply_async((run.pk,), queue=queue)
    return run


def searched_docids(run: Run) -> set[str]:
    return {row[0] for search in run.searches.all() for row in search.ranking}


@pytest.mark.slow  # two worker processes: ~11 s
def test_two_workers_share_one_index_through_postgres(collection, tmp_path, monkeypatch):
    import scripts.run

    monkeypatch.setattr(scripts.run, "WORKER_CONCURRENCY", 1)  # two machines of one process each: fits 2 cores
    from evidence.encode.embedding import dynamic_int8_path

    # Each machine builds the int8 model once; the test shares one build so that it stays fast.
    models = {"EVIDENCE_MODEL_DIR": str(dynamic_int8_path().parent)}
    queues = [f"evidence-two-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    workers = [Worker(q, tmp_path / f"{q}.log", tmp_path / f"data-{i}", models, pool="prefork")
               for i, q in enumerate(queues)]  # fmt: skip
    try:
        for worker in workers:
            worker.wait_ready()
        first = jobs.create_job(collection, list(FIRST.items()))
        for file_id in jobs.pending_file_ids(first):
            ingest_file.apply_async((file_id,), queue=queues[0])
        wait_for(lambda: finished(first), 90, "the first worker ingests")
        assert IngestJob.objects.get(pk=first.pk).status == "done"

        before = ask(collection, queues[1], "Does caffeine delay sleep onset?")
        more = jobs.create_job(collection, list(MORE.items()))
        for n, file_id in enumerate(jobs.pending_file_ids(more)):
            ingest_file.apply_async((file_id,), queue=queues[n % 2])  # one upload spread over both machines
        during = ask(collection, queues[1], "Which melatonin dose improves sleep quality?")
        wait_for(lambda: finished(more), 120, "both workers ingest the upload")
        for run in (before, during):
            wait_for(lambda run=run: Run.objects.get(pk=run.pk).status not in ("queued", "running"), 90, "runs end")
            run.refresh_from_db()
            assert run.status != "failed", run.error if hasattr(run, "error") else run.status
        assert "caffeine" in searched_docids(before)  # the second machine read what the first indexed

        assert IngestJob.objects.get(pk=more.pk).status == "done"
        documents = set(Document.objects.filter(collection=collection).values_list("docid", flat=True))
        assert len(documents) == 8 and not Document.objects.filter(collection=collection, index_version=None).exists()
        versions = list(IndexSegment.objects.filter(collection=collection).order_by("version")
                        .values_list("first_version", "version"))  # fmt: skip
        assert versions[0][0] == 1 and all(b[0] == a[1] + 1 for a, b in itertools.pairwise(versions))
        assert versions[-1][1] == 8  # one version per file, from one sequence however many workers wrote
        index_store._cache.clear()
        index = index_store.load(collection.pk)
        assert sorted(index.documents.ids) == sorted(documents) and len(index.passage_docids) >= 8
    finally:
        for worker in workers:
            worker.stop()
        for queue in queues:
            purge(queue)
