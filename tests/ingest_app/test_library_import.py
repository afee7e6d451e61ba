"""Importing a reference library with its PDFs (Zotero's export layout, a .bib beside a folder, CSL-JSON): every
document takes its entry's title and DOI, entries without a document are listed with the reason, nothing is lost."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from evidence.ingest.library_import import library_report
from evidence.models import Collection, Document, IngestFile
from tests.ingesting import ingest_now
from tests.real_data import SHARED_DATA, require

PAPERS = SHARED_DATA / "realqa" / "papers"
NAMES = ("answer_validation_ave2008", "monolingual_mt_paraphrase", "biomedical_association_rules")
# Library titles that differ from the printed ones, so a document showing them can only have them from the library.
LIBRARY = {
    "answer_validation_ave2008": ("Answer Validation Exercise at CLEF 2008 (library title)", "10.1000/ave.2008"),
    "monolingual_mt_paraphrase": ("Monolingual MT for paraphrase generation (library title)", "10.1000/mono.mt"),
    "biomedical_association_rules": ("Association rules in biomedicine (library title)", "10.1000/bio.rules"),
}


@pytest.fixture(autouse=True)
def real_papers() -> Path:
    return require(PAPERS)


@pytest.fixture(autouse=True)
def isolated_dirs(settings, tmp_path):
    settings.EVIDENCE_UPLOAD_DIR = tmp_path / "uploads"


def pdf(name: str) -> bytes:
    return (PAPERS / f"{name}.pdf").read_bytes()


def bib_entry(key: str, file_field: str | None) -> str:
    title, doi = LIBRARY[key]
    file_line = f"  file = {{{file_field}}},\n" if file_field else ""
    return (
        f'@article{{{key},\n  title = {{{title}}},\n  author = {{Doe, Jane and M{{\\"u}}ller, Hans}},\n'
        f"  year = {{2019}},\n  journal = {{Journal of Tests}},\n  doi = {{{doi}}},\n{file_line}}}\n"
    )


def zotero_export() -> bytes:
    """Zotero's "Export Collection…" (BibTeX, Export Files): a folder with the .bib and files/<n>/<name>."""
    bib = "".join(
        bib_entry(name, f"Full Text PDF:files/{n}/{name}.pdf:application/pdf") for n, name in enumerate(NAMES[:2])
    )
    bib = bib.replace(
        "files/0/answer_validation_ave2008.pdf:application/pdf",
        "files/0/answer_validation_ave2008.pdf:application/pdf;Snapshot:files/0/snapshot.html:text/html",
    )
    bib += bib_entry("biomedical_association_rules", "Full Text PDF:files/9/not-exported.pdf:application/pdf")
    bib += "@book{no_file_2001,\n  title = {A book with no attachment},\n  year = {2001},\n}\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("My Library/My Library.bib", bib)
        for n, name in enumerate(NAMES[:2]):
            archive.writestr(f"My Library/files/{n}/{name}.pdf", pdf(name))
        archive.writestr("My Library/files/0/snapshot.html", "<html><title>Snapshot</title><p>The web page.</p></html>")
    return buffer.getvalue()


@pytest.mark.django_db
def test_a_zotero_export_gives_each_paper_its_entry_and_lists_the_entries_left_over(collection):
    job = ingest_now(collection, [("my-library.zip", zotero_export())], embed=False)
    documents = {d.source_name.rsplit("/", 1)[-1]: d for d in Document.objects.filter(collection=collection)}
    assert sorted(documents) == ["answer_validation_ave2008.pdf", "monolingual_mt_paraphrase.pdf"]  # no snapshot
    for name in NAMES[:2]:
        document = documents[f"{name}.pdf"]
        title, doi = LIBRARY[name]
        assert (document.title, document.metadata["doi"]) == (title, doi)
        assert document.metadata["authors"] == ["Jane Doe", "Hans Müller"]
        assert (document.metadata["year"], document.metadata["venue"]) == (2019, "Journal of Tests")
        assert document.metadata["title_source"] == "library"
        assert document.metadata["library"]["matched_by"] == "file path"
        assert document.metadata["layout_title"]  # the printed title is kept beside it
    snapshot = IngestFile.objects.get(job=job, name__endswith="snapshot.html")
    assert snapshot.status == IngestFile.Status.DONE and "beside its PDF" in snapshot.library["skipped"]
    (report,) = library_report(job)
    assert (report["entries"], report["matched"]) == (4, 2)
    reasons = {entry["key"]: entry["reason"] for entry in report["without_document"]}
    assert reasons == {
        "biomedical_association_rules": (
            "its file (not-exported.pdf) was not in the upload: add it to the upload and send the library again"
        ),
        "no_file_2001": "it has no attached file: upload its PDF with the library, or on its own",
    }


@pytest.mark.django_db
def test_a_bib_beside_a_folder_of_pdfs_imports_through_manage_py_ingest(collection, tmp_path, capsys):
    folder = tmp_path / "papers-library"
    (folder / "pdfs").mkdir(parents=True)
    bib = ""
    for name in NAMES:
        (folder / "pdfs" / f"{name}.pdf").write_bytes(pdf(name))
        bib += bib_entry(name, f"pdfs/{name}.pdf")  # a plain `file = {path}` field, relative to the .bib
    (folder / "refs.bib").write_text(bib)
    call_command("ingest", str(folder), "--collection", collection.name, "--owner", "alice", "--no-embed")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (summary["documents"], summary["failed"]) == (3, 0)
    documents = Document.objects.filter(collection=collection)
    assert {d.title: d.metadata["doi"] for d in documents} == dict(LIBRARY.values())


@pytest.mark.django_db
def test_csl_json_entries_find_their_browser_uploaded_pdfs_by_citation_key_and_title(collection):
    from tests.ingest.real_titles import known_titles

    printed = {path.stem: title for path, title in known_titles().items()}
    items = [
        {"id": NAMES[0], "type": "article-journal", "title": "Found by its key", "DOI": "10.1000/key"},
        {"id": "ITEM-2", "type": "paper-conference", "title": printed[NAMES[1]], "DOI": "10.1000/title"},
        {"id": "ITEM-3", "type": "article-journal", "title": "Not uploaded at all"},
    ]
    files = [("library.json", json.dumps(items).encode())] + [(f"{name}.pdf", pdf(name)) for name in NAMES[:2]]
    job = ingest_now(collection, files, embed=False)
    documents = {d.source_name: d for d in Document.objects.filter(collection=collection)}
    first, second = documents[f"{NAMES[0]}.pdf"], documents[f"{NAMES[1]}.pdf"]
    assert (first.title, first.metadata["doi"], first.metadata["library"]["matched_by"]) == (
        "Found by its key",
        "10.1000/key",
        "citation key",
    )
    assert (second.metadata["doi"], second.metadata["library"]["matched_by"]) == ("10.1000/title", "title")
    (report,) = library_report(job)
    assert [e["key"] for e in report["without_document"]] == ["ITEM-3"]


@pytest.mark.django_db
def test_a_library_sent_after_its_papers_gives_the_stored_papers_their_entries(collection):
    ingest_now(collection, [(f"{name}.pdf", pdf(name)) for name in NAMES[:2]], embed=False)
    # The .bib alone (its files named as on the researcher's disk): tied to the stored papers by file name.
    bib = "".join(bib_entry(name, f":/Users/me/Zotero/storage/X{n}/{name}.pdf:PDF") for n, name in enumerate(NAMES[:2]))
    job = ingest_now(collection, [("refs.bib", bib.encode())], embed=False)
    assert {d.title: d.metadata["doi"] for d in Document.objects.filter(collection=collection)} == dict(
        LIBRARY[name] for name in NAMES[:2]
    )
    assert library_report(job)[0]["matched"] == 2
    # The Zotero export sent again, PDFs and all: the PDFs are duplicates, and still take their entries.
    Document.objects.filter(collection=collection).update(title="stale", metadata={})
    ingest_now(collection, [("again.zip", zotero_export())], embed=False)
    assert Document.objects.filter(collection=collection).count() == 2
    assert sorted(Document.objects.filter(collection=collection).values_list("title", flat=True)) == sorted(
        LIBRARY[name][0] for name in NAMES[:2]
    )


@pytest.mark.django_db
def test_a_damaged_library_fails_alone_with_what_to_do_and_its_papers_are_still_read(collection):
    job = ingest_now(collection, [("refs.bib", b"@article{x, title = {never closed"), ("a.pdf", pdf(NAMES[0]))])
    library = IngestFile.objects.get(job=job, name="refs.bib")
    assert library.status == IngestFile.Status.FAILED and not library.retryable
    assert library.error == (
        "refs.bib holds no library entry that could be read (the entry starting on line 1 is not valid BibTeX): "
        "export the library again."
    )
    assert Document.objects.filter(collection=collection, source_name="a.pdf").exists()


@pytest.mark.django_db
def test_the_upload_api_reports_each_library_entry_by_entry(logged_in_client, user):
    collection = Collection.objects.create(owner=user, name="Library")
    bib = bib_entry(NAMES[0], f"files/1/{NAMES[0]}.pdf") + "@misc{lonely, title = {Lonely entry}}\n"
    files = [io.BytesIO(bib.encode()), io.BytesIO(pdf(NAMES[0]))]
    files[0].name, files[1].name = "refs.bib", f"{NAMES[0]}.pdf"
    response = logged_in_client.post(f"/api/collections/{collection.pk}/files", {"files": files})
    assert response.status_code == 202, response.content
    upload = response.json()
    (library,) = upload["libraries"]
    assert (library["file"], library["entries"]) == ("refs.bib", 2)
    assert [e["key"] for e in library["without_document"]] == [NAMES[0], "lonely"]  # the PDF is not read yet
    assert library["without_document"][0]["reason"] == "its file is still being read"
    notes = {f["name"]: f["note"] for f in upload["files"]}
    assert notes["refs.bib"].startswith("A reference library of 2 entries")


@pytest.mark.django_db
def test_the_pages_show_the_library_the_entries_left_over_and_each_papers_byline(logged_in_client, user):
    collection = Collection.objects.create(owner=user, name="Library pages")
    upload = io.BytesIO(zotero_export())
    upload.name = "my-library.zip"
    response = logged_in_client.post(f"/collections/{collection.pk}/upload", {"files": [upload]})
    assert response.status_code == 302
    from evidence.ingest import jobs
    from evidence.models import IngestJob

    job = IngestJob.objects.get(collection=collection)
    jobs.process_all(job, embed=False)
    page = logged_in_client.get(f"/uploads/{job.pk}/").content.decode()
    assert "2 of 4 entries gave a paper its title, authors, year, venue and DOI." in page
    assert "A book with no attachment" in page and "it has no attached file" in page
    assert "Skipped: another copy of" in page
    document = Document.objects.get(collection=collection, source_name__endswith="ave2008.pdf")
    page = logged_in_client.get(f"/documents/{document.pk}/").content.decode()
    assert "Jane Doe, Hans Müller · 2019 · <em>Journal of Tests</em>" in page
    assert 'href="https://doi.org/10.1000/ave.2008"' in page
