"""Ingestion through Celery and the CLI: progress, duplicates, incremental indexing, bad input leaves nothing."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.management import call_command

from evidence.ingest import jobs
from evidence.models import Collection, Document, IngestFile, IngestJob, Passage, Region
from evidence.retrieval import index_store
from evidence.retrieval.searchers import get_searcher
from evidence.services.uploads import start_upload
from tests.ingesting import ingest_now

NOTE = b"# Caffeine and sleep\n\nCaffeine blocks adenosine receptors. It delays sleep onset by about an hour.\n"
OTHER = b"Exercise and memory\n\nOne year of walking increased hippocampal volume by two percent in older adults.\n"


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_it_ingests_uploads_in_the_worker_with_progress(celery_worker, collection):
    job = start_upload(collection, [("caffeine.md", NOTE), ("exercise.txt", OTHER)])
    for _ in range(600):
        job.refresh_from_db()
        if job.status == IngestJob.Status.DONE:
            break
        import time

        time.sleep(0.1)
    assert job.status == IngestJob.Status.DONE
    assert (job.files_total, job.files_done, job.documents_added) == (2, 2, 2)
    assert (
        job.passages_embedded == job.passages_total == Passage.objects.filter(document__collection=collection).count()
    )
    assert not Passage.objects.filter(document__collection=collection, embedding__isnull=True).exists()
    # Sentence vectors are made when System 1 first reads them (tests/ingest_app/test_vectors.py).
    assert not Region.objects.filter(document__collection=collection, embedding__isnull=False).exists()
    hits = get_searcher("hybrid", collection.pk).search("adenosine receptors", 10)
    assert hits[0].docid == "caffeine"


@pytest.mark.django_db
def test_every_stored_offset_round_trips(collection):
    ingest_now(collection, [("caffeine.md", NOTE), ("exercise.txt", OTHER)], embed=False)
    for document in Document.objects.filter(collection=collection):
        for unit in [*document.passages.all(), *document.regions.all()]:
            quote = document.text[unit.start : unit.end]
            assert quote and quote == quote.strip()


@pytest.mark.django_db
def test_it_skips_duplicates_and_indexes_only_new_documents(collection):
    first = jobs.create_job(collection, [("caffeine.md", NOTE)])
    jobs.process_file(jobs.pending_file_ids(first)[0], embed=False)
    version = index_store.current_version(collection.pk)
    second = jobs.create_job(collection, [("copy-of-caffeine.md", NOTE), ("exercise.txt", OTHER)])
    for file_id in jobs.pending_file_ids(second):
        jobs.process_file(file_id, embed=False)
    summary = jobs.job_summary(second)
    assert summary["documents"] == 1
    assert summary["skipped_duplicates"] == 1
    assert Document.objects.filter(collection=collection).count() == 2
    index = index_store.load(collection.pk)
    assert index_store.current_version(collection.pk) == version + 1
    assert sorted(index.documents.ids) == ["caffeine", "exercise"]


@pytest.mark.django_db
def test_it_reports_each_bad_file_and_keeps_the_good_ones(collection, settings):
    settings.EVIDENCE_MAX_FILE_BYTES = 4096
    uploads = [
        ("empty.txt", b""),
        ("huge.txt", b"word " * 2000),
        ("image.bmp", b"BM\x00\x00binary"),
        ("latin1.txt", "caf\xe9 cr\xe8me".encode("latin-1")),
        ("broken.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 4),
        ("evil.zip", zip_bytes({"../evil.txt": b"escape"})),
        ("good.md", NOTE),
    ]
    job = ingest_now(collection, uploads, embed=False)
    files = {record.name: record for record in IngestFile.objects.filter(job=job)}
    for name in ["empty.txt", "huge.txt", "image.bmp", "latin1.txt", "broken.pdf", "evil.zip"]:
        assert files[name].status == IngestFile.Status.FAILED, name
        assert name in files[name].error, files[name].error
    assert files["good.md"].status == IngestFile.Status.DONE
    assert list(Document.objects.filter(collection=collection).values_list("source_name", flat=True)) == ["good.md"]
    job.refresh_from_db()
    assert job.status == IngestJob.Status.PARTIAL and job.files_done == job.files_total == 7
    assert job.files_failed == 6


@pytest.mark.django_db
def test_a_failure_while_writing_leaves_no_half_document(collection, monkeypatch):
    from evidence.ingest import store

    calls = {"n": 0}
    original = store.copy_regions

    def flaky_copy(regions):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk full")
        return original(regions)

    monkeypatch.setattr(store, "copy_regions", flaky_copy)
    job = ingest_now(collection, [("caffeine.md", NOTE), ("exercise.txt", OTHER)], embed=False)
    failed = IngestFile.objects.get(job=job, name="exercise.txt")
    assert failed.status == IngestFile.Status.FAILED and "internal error" in failed.error
    assert "disk full" not in failed.error and "RuntimeError" not in failed.error  # details go to the log only
    assert list(Document.objects.values_list("docid", flat=True)) == ["caffeine"]
    assert not Passage.objects.exclude(document__docid="caffeine").exists()
    assert not Region.objects.exclude(document__docid="caffeine").exists()


@pytest.mark.django_db
def test_a_repeated_task_is_a_no_op(collection):
    job = jobs.create_job(collection, [("caffeine.md", NOTE)])
    file_id = jobs.pending_file_ids(job)[0]
    assert jobs.process_file(file_id, embed=False) is not None
    assert jobs.process_file(file_id, embed=False) is None
    assert Document.objects.count() == 1


@pytest.mark.django_db
def test_the_cli_ingests_the_real_papers_and_prints_a_summary(shared_data, user, capsys):
    user.is_superuser = True
    user.save()
    call_command(
        "ingest",
        str(shared_data / "papers" / "pdf"),
        str(shared_data / "papers" / "jats"),
        str(shared_data / "papers" / "s2orc_json"),
        "--collection",
        "papers",
        "--no-embed",
        verbosity=0,
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    titles = list(Document.objects.filter(collection__name="papers").values_list("title", flat=True))
    # 13 papers: the two PDFs' S2ORC parses in papers/pdf are the same papers, reported as duplicates.
    assert summary["documents"] == 13 == len(titles)
    assert summary["skipped_duplicates"] == 2
    assert summary["errors"] == []
    pdf = Document.objects.get(collection__name="papers", docid="N18-3011")
    sentence = "We describe a deployed scalable system for organizing published scientific literature"
    start = pdf.text.index(sentence)
    region = pdf.regions.get(kind="sentence", start=start)
    assert pdf.text[region.start : region.end].startswith(sentence)
    assert region.page == 1 == pdf.page_at(start)
    assert Collection.objects.get(name="papers").owner == user


@pytest.mark.django_db(transaction=True)
def test_the_cli_ingests_files_two_at_a_time_in_threads_of_its_own(tmp_path, user, capsys, monkeypatch):
    """One file's parsing and indexing overlap another's embedding; every file still ends indexed once."""
    import threading

    user.is_superuser = True
    user.save()
    notes = {f"note-{i}.md": f"# Note {i}\n\nCaffeine study {i} timed sleep in {i + 10} adults.\n" for i in range(6)}
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in notes.items():
        (folder / name).write_text(text)
    threads: set[str] = set()
    real = jobs.process_file

    def spy(file_id, **kwargs):
        threads.add(threading.current_thread().name)
        return real(file_id, **kwargs)

    monkeypatch.setattr(jobs, "process_file", spy)
    call_command("ingest", str(folder), "--collection", "notes", "--files-at-once", "2", "--no-embed", verbosity=0)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["documents"] == 6 and summary["errors"] == []
    assert len(threads) == 2 and all(name.startswith("ingest") for name in threads)
    assert sorted(Document.objects.filter(collection__name="notes").values_list("title", flat=True)) == [
        f"Note {i}" for i in range(6)
    ]
    hits = get_searcher("bm25", Collection.objects.get(name="notes").pk).search("caffeine study 3", 1)
    assert hits and Document.objects.get(docid=hits[0].docid).title == "Note 3"


@pytest.mark.django_db
def test_the_cli_refuses_zero_files_at_once_before_it_stores_anything(tmp_path, user):
    from django.core.management.base import CommandError

    (tmp_path / "a.md").write_bytes(NOTE)
    with pytest.raises(CommandError, match="at least 1"):
        call_command("ingest", str(tmp_path / "a.md"), "--collection", "c", "--owner", "alice", "--files-at-once", "0")
    assert not IngestJob.objects.exists() and not Collection.objects.filter(name="c").exists()
