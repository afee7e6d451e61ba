"""Reading reference libraries (BibTeX, CSL-JSON) and tying files and documents to their entries (pure functions)."""

from __future__ import annotations

import json

import pytest

from evidence.ingest.library import (
    LibraryEntry,
    attachment_paths,
    clean_doi,
    files_in_upload,
    match_document,
    read_library,
    snapshot_files,
)
from evidence.ingest.types import IngestError

ZOTERO_BIB = r"""
@article{smith_bert_2020,
  title = {{BERT}: Pre-training of Deep {Schr{\"o}dinger} Transformers},
  author = {Smith, John and van der Berg, Anna and M{\"u}ller, Hans},
  year = {2020},
  journal = {Journal of Things},
  doi = {https://doi.org/10.1000/XYZ123},
  file = {Full Text PDF:files/12/Smith et al. - 2020 - BERT.pdf:application/pdf;Snapshot:files/13/snap.html:text/html},
}

@inproceedings{broken,
  title = {Broken

@misc{doe_second_2021, title="Second one", author="Jane Doe", date={2021-05-01}}
"""


def test_a_zotero_bibtex_export_is_read_with_names_accents_doi_and_attachments():
    library = read_library("Exported Items/Exported Items.bib", ZOTERO_BIB.encode())
    first, second = library.entries
    assert (first.key, first.line) == ("smith_bert_2020", 2)
    assert first.title == "BERT: Pre-training of Deep Schrödinger Transformers"
    assert first.authors == ("John Smith", "Anna van der Berg", "Hans Müller")
    assert (first.year, first.venue, first.doi) == (2020, "Journal of Things", "10.1000/XYZ123")
    assert first.files == (
        "Exported Items/files/12/Smith et al. - 2020 - BERT.pdf",
        "Exported Items/files/13/snap.html",
    )
    assert (second.title, second.authors, second.year, second.files) == ("Second one", ("Jane Doe",), 2021, ())
    assert library.unreadable == ("the entry starting on line 11 is not valid BibTeX",)


@pytest.mark.parametrize(
    ("field", "paths"),
    [
        ("Full Text PDF:files/7/a.pdf:application/pdf", ["files/7/a.pdf"]),
        (":papers/b.pdf:PDF", ["papers/b.pdf"]),  # JabRef
        ("papers/c.pdf", ["papers/c.pdf"]),  # a bare path
        (r"PDF:C\:\\Users\\me\\d.pdf:PDF", [r"C:\Users\me\d.pdf"]),  # an escaped Windows drive
        ("A:x/a.pdf:application/pdf;B:x/b.html:text/html", ["x/a.pdf", "x/b.html"]),
        ("", []),
    ],
)
def test_attachment_paths_of_the_file_field_layouts(field, paths):
    assert attachment_paths(field) == paths


def test_a_csl_json_export_is_read_and_a_plain_json_document_is_not_taken_for_one():
    items = [
        {
            "id": "http://zotero.org/users/1/items/ABC",
            "type": "article-journal",
            "title": "Caffeine and sleep",
            "author": [{"family": "Drake", "given": "Christopher"}, {"literal": "The Sleep Group"}],
            "issued": {"date-parts": [[2013, 11]]},
            "container-title": "J Clin Sleep Med",
            "DOI": "10.5664/jcsm.3170",
        }
    ]
    library = read_library("library.json", json.dumps(items).encode())
    (entry,) = library.entries
    assert entry.authors == ("Christopher Drake", "The Sleep Group")
    assert (entry.year, entry.venue, entry.doi) == (2013, "J Clin Sleep Med", "10.5664/jcsm.3170")
    assert read_library("paper.json", json.dumps({"title": "x", "body_text": []}).encode()) is None
    assert read_library("list.json", b"[1, 2]") is None


def test_a_library_with_no_readable_entry_is_refused_with_what_to_do():
    with pytest.raises(IngestError, match=r"holds no library entry that could be read.*export the library again"):
        read_library("refs.bib", b"@article{broken, title = {never closed")
    with pytest.raises(IngestError, match="not valid UTF-8"):
        read_library("refs.bib", b"\xff\xfe@article")


def test_clean_doi_drops_resolver_prefixes_and_refuses_non_dois():
    assert clean_doi(" doi: 10.1/x ") == "10.1/x"
    assert clean_doi("http://dx.doi.org/10.2/y") == "10.2/y"
    assert clean_doi("not a doi") == ""


def entry(key: str, title: str = "", files: tuple[str, ...] = (), doi: str = "") -> LibraryEntry:
    return LibraryEntry(key=key, title=title, files=files, doi=doi)


def test_uploaded_names_tie_to_entries_by_the_longest_shared_path_tail():
    entries = (
        entry("a", files=("Lib/files/1/paper.pdf",)),
        entry("b", files=("Lib/files/2/paper.pdf",)),
        entry("c", files=("Lib/files/3/unique.pdf",)),
    )
    # A zip member or a command-line path keeps its folders; the browser sends the bare name.
    names = ["lib.zip/Lib/files/2/paper.pdf", "unique.pdf", "paper.pdf", "other.pdf"]
    assert files_in_upload(entries, names) == {"lib.zip/Lib/files/2/paper.pdf": "b", "unique.pdf": "c"}


def test_a_web_snapshot_beside_its_entrys_pdf_is_skipped_but_a_lone_snapshot_is_not():
    tied = {"x/1/a.pdf": "a", "x/1/a.html": "a", "x/2/b.html": "b"}
    assert snapshot_files((), tied) == {"x/1/a.html"}


def test_a_document_matches_its_entry_by_key_doi_or_title_and_only_when_unambiguous():
    entries = (
        entry("smith2020", "Deep learning for cats"),
        entry("lee2019", "A survey of retrieval", doi="10.5555/Lee.2019"),
        entry("kim2018", "Graph neural networks for molecules"),
    )
    assert match_document(entries, "papers/smith2020.pdf", "", "").how == "citation key"
    found = match_document(entries, "x.pdf", "Something else", "Header\ndoi: 10.5555/lee.2019\nAbstract")
    assert (found.entry.key, found.how) == ("lee2019", "DOI")
    found = match_document(entries, "x.pdf", "Graph Neural Networks for Molecules.", "body")
    assert (found.entry.key, found.how) == ("kim2018", "title")
    assert match_document(entries, "x.pdf", "Graph networks", "body") is None
    twins = (entry("a", "Same title"), entry("b", "Same title"))
    assert match_document(twins, "x.pdf", "Same title", "") is None
    assert match_document(entries, "x.pdf", "", "", tied_key="lee2019").how == "file path"
