"""Upload states a user can trust: a zip's members are rows of their own, a job is done, partial or failed, errors
are plain sentences, and a failed file can be retried."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from evidence.ingest import jobs
from evidence.models import Document, IngestFile, IngestJob
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db

NOTE = b"# Caffeine\n\nCaffeine blocks adenosine receptors and delays sleep onset by about an hour.\n"
OTHER = b"Walking for a year increased hippocampal volume by two percent in older adults.\n"
# What a user must never read in an error: a Python exception class, a traceback, a server path.
LEAKS = re.compile(r"\b[A-Z][a-zA-Z]+(Error|Exception)\b|Traceback|/work/|/tmp/|\.upload\b")


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def real_pdf(shared_data) -> bytes:
    return sorted((shared_data / "papers" / "pdf").glob("*.pdf"))[0].read_bytes()


def test_it_gives_each_zip_member_a_row_and_calls_a_job_with_bad_members_partial(collection, shared_data):
    pdf = real_pdf(shared_data)
    archive = zip_of({"papers/good.md": NOTE, "papers/other.txt": OTHER, "papers/truncated.pdf": pdf[: len(pdf) // 2],
                      "papers/random.pdf": bytes(range(256)) * 8, "papers/empty.txt": b""})
    job = ingest_now(collection, [("papers.zip", archive)], embed=False)
    job.refresh_from_db()
    rows = {f.name: f for f in IngestFile.objects.filter(job=job)}
    zip_row = rows.pop("papers.zip")
    assert zip_row.status == IngestFile.Status.UNPACKED and zip_row.members.count() == 5
    assert all(f.archive_id == zip_row.pk for f in rows.values())
    failed = {name: f.error for name, f in rows.items() if f.status == IngestFile.Status.FAILED}
    assert set(failed) == {f"papers.zip/papers/{name}" for name in ("truncated.pdf", "random.pdf", "empty.txt")}
    for name, error in failed.items():
        assert error.startswith(name) and error.count(". ") == 0, error  # one sentence, naming the file
        assert not LEAKS.search(error), error
    assert "truncated" in failed["papers.zip/papers/truncated.pdf"]
    assert (job.status, job.files_total, job.files_done, job.files_failed) == ("partial", 5, 5, 3)
    assert job.documents_added == 2 == Document.objects.filter(collection=collection).count()


def test_a_job_whose_every_file_failed_is_failed_not_done(collection):
    job = ingest_now(collection, [("empty.txt", b""), ("image.bmp", b"BM\x00\x00binary")], embed=False)
    job.refresh_from_db()
    assert (job.status, job.files_failed, job.documents_added) == ("failed", 2, 0)


def test_a_failed_file_can_be_retried_and_then_ends_done(collection, monkeypatch):
    from evidence.ingest import jobs as jobs_module

    real = jobs_module.parse_with_limits
    monkeypatch.setattr(jobs_module, "parse_with_limits", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    job = ingest_now(collection, [("good.md", NOTE)], embed=False)
    record = IngestFile.objects.get(job=job)
    assert record.status == "failed" and "internal error" in record.error and not LEAKS.search(record.error)
    assert IngestJob.objects.get(pk=job.pk).status == "failed"

    monkeypatch.setattr(jobs_module, "parse_with_limits", real)
    assert jobs.retry_file(record)
    assert IngestJob.objects.get(pk=job.pk).status == "running"
    assert not jobs.retry_file(IngestFile.objects.get(pk=record.pk)), "a queued file is not retried twice"
    jobs.process_all(job, embed=False)
    job.refresh_from_db()
    assert IngestFile.objects.get(pk=record.pk).status == "done"
    assert (job.status, job.files_failed, job.documents_added) == ("done", 0, 1)


def fail_by_internal_error(monkeypatch) -> None:
    """Make the next ingest fail the way a retry can mend (not the file's fault)."""
    from evidence.ingest import jobs as jobs_module

    monkeypatch.setattr(jobs_module, "parse_with_limits", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))


def test_the_job_page_offers_retry_only_where_another_try_can_help(logged_in_client, collection, monkeypatch):
    archive = zip_of({"a.md": NOTE, "broken.pdf": b"%PDF-1.7\n" + bytes(range(256)) * 4})
    job = ingest_now(collection, [("bundle.zip", archive)], embed=False)
    page = logged_in_client.get(f"/uploads/{job.pk}/").content.decode()
    assert 'data-status="partial"' in page and "unpacked into 2 files" in page
    assert page.count('class="file file-') == 3 and page.count(" member") >= 2
    assert "bundle.zip/broken.pdf" in page and "Retry</button>" not in page  # a damaged PDF fails every time
    fail_by_internal_error(monkeypatch)
    flaky = ingest_now(collection, [("good.md", NOTE)], embed=False)
    assert "Retry</button>" in logged_in_client.get(f"/uploads/{flaky.pk}/").content.decode()


def test_retry_from_the_page_requeues_and_another_users_file_is_404(logged_in_client, collection, other_user, client,
                                                                    monkeypatch, django_capture_on_commit_callbacks):
    sent: list[int] = []
    monkeypatch.setattr("evidence.services.uploads.send_ingest", sent.append)
    fail_by_internal_error(monkeypatch)
    job = ingest_now(collection, [("good.md", NOTE)], embed=False)
    record = IngestFile.objects.get(job=job)
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in_client.post(f"/uploads/{job.pk}/files/{record.pk}/retry")
    assert response.status_code == 302
    assert IngestFile.objects.get(pk=record.pk).status == "queued" and sent == [record.pk]
    client.force_login(other_user)
    assert client.post(f"/uploads/{job.pk}/files/{record.pk}/retry").status_code == 404


def test_an_empty_file_is_not_retried_and_says_what_to_do(logged_in_client, collection):
    job = ingest_now(collection, [("empty.txt", b"")], embed=False)
    record = IngestFile.objects.get(job=job)
    assert not record.retryable and not jobs.retry_file(record)
    page = logged_in_client.post(f"/uploads/{job.pk}/files/{record.pk}/retry", follow=True).content.decode()
    assert "empty.txt cannot be retried" in page and "upload it again" in page
    assert IngestFile.objects.get(pk=record.pk).status == "failed"


def test_the_api_reports_partial_with_counts_members_and_retries(logged_in_client, collection, monkeypatch):
    monkeypatch.setattr("evidence.services.uploads.send_ingest", lambda file_id: None)
    job = ingest_now(collection, [("bundle.zip", zip_of({"a.md": NOTE, "b.txt": b""}))], embed=False)
    body = logged_in_client.get(f"/api/uploads/{job.pk}").json()
    assert (body["status"], body["files_total"], body["files_failed"]) == ("partial", 2, 1)
    archive = next(f for f in body["files"] if f["status"] == "unpacked")
    failed = next(f for f in body["files"] if f["status"] == "failed")
    assert failed["archive_id"] == archive["id"] and failed["error"].startswith("bundle.zip/b.txt is empty")
    assert failed["retryable"] is False and not any(f["retryable"] for f in body["files"])
    refused = logged_in_client.post(f"/api/uploads/{job.pk}/files/{failed['id']}/retry")
    assert refused.status_code == 409 and "fix the file and upload it again" in refused.json()["detail"]

    fail_by_internal_error(monkeypatch)
    flaky = ingest_now(collection, [("good.md", NOTE)], embed=False)
    mendable = logged_in_client.get(f"/api/uploads/{flaky.pk}").json()["files"][0]
    assert mendable["retryable"] is True
    retried = logged_in_client.post(f"/api/uploads/{flaky.pk}/files/{mendable['id']}/retry")
    assert retried.status_code == 202 and retried.json()["status"] == "running"
    again = logged_in_client.post(f"/api/uploads/{flaky.pk}/files/{mendable['id']}/retry")
    assert again.status_code == 409
