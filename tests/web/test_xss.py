"""Document text, titles, quotes and event payloads render inert everywhere."""

from __future__ import annotations

import pytest

from evidence import streams
from evidence.models import Document, IngestFile, IngestJob, Passage

pytestmark = pytest.mark.django_db

PAYLOAD = "<script>alert(1)</script>"
TITLE = '<img src=x onerror="alert(2)"><b>Bold</b> title'


@pytest.fixture
def hostile(user, collection, run_factory):
    text = f"Intro {PAYLOAD} and the key finding is that it delays sleep onset by about an hour."
    document = Document.objects.create(collection=collection, docid="evil", title=TITLE, source_name="evil.html",
                                       source_format="html", sha256="3" * 64, text=text)
    Passage.objects.create(document=document, ordinal=0, start=0, end=len(text))
    run = run_factory(user, collection, document, quote=f"{PAYLOAD} and the key finding")
    streams.emit(run.pk, "mystery", {"html": PAYLOAD})
    job = IngestJob.objects.create(owner=user, collection=collection, files_total=1)
    IngestFile.objects.create(job=job, name=f"{PAYLOAD}.pdf", status="failed", error=f"Cannot parse {PAYLOAD}")
    other = run_factory(user, collection, document, system="single_pass", quote="it delays sleep onset")
    return {"document": document, "run": run, "job": job, "other": other}


def test_everything_renders_inert(logged_in_client, hostile):
    run, document = hostile["run"], hostile["document"]
    urls = [f"/runs/{run.pk}/", f"/runs/{run.pk}/audit", f"/runs/{run.pk}/events?after=0",
            f"/documents/{document.pk}/", f"/collections/{document.collection_id}/", f"/uploads/{hostile['job'].pk}/",
            f"/compare?a={run.pk}&b={hostile['other'].pk}", "/runs/", "/"]
    for url in urls:
        html = logged_in_client.get(url).content.decode()
        assert PAYLOAD not in html, url
        assert "<img src=x" not in html, url
        assert "<b>Bold</b>" not in html, url
    audit = logged_in_client.get(f"/runs/{run.pk}/audit").content.decode()
    assert '<mark id="span">&lt;script&gt;alert(1)&lt;/script&gt; and the key finding</mark>' in audit
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in audit
