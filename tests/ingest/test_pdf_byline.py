"""A PDF's byline: the title with no author names glued on, the authors split cleanly, the year from the venue,
copyright or arXiv line; BibTeX and CSL-JSON built from it; a library's metadata wins over it."""

from __future__ import annotations

import re
from datetime import date
from types import SimpleNamespace

import pytest

from evidence.ingest.library import LibraryEntry
from evidence.ingest.library_import import _apply
from evidence.ingest.parsers import parse_file
from evidence.ingest.parsers.pdf_byline import metadata_authors, parse_names, strip_authors
from evidence.ingest.parsers.pdf_venue import plausible_year, read_venue
from evidence.names import name_parts
from evidence.presenting.answer_formats import bibtex, csl_items
from evidence.presenting.exports import _sources
from tests.ingest.pdfgen import Line, Run, make_pdf, text_line
from tests.ingest.real_bylines import family_set, known_bylines
from tests.ingest.real_titles import DATA, comparable
from tests.real_data import require

TITLE = "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich Scientific Documents"
AUTHORS = ["Kyle Lo", "Zejiang Shen", "Benjamin Newman", "Joseph Chee Chang"]


def _marked_names(x: float, y: float, marks: list[str], size: float = 12, font: str = "F2") -> Line:
    """An author line as EMNLP prints it: names set apart only by raised footnote marks, no commas."""
    runs: list[Run] = []
    for i, (name, mark) in enumerate(zip(AUTHORS, marks, strict=True)):
        runs += [Run((" " if i else "") + name, size, font), Run(mark, size * 0.6, font, size * 0.4)]
    return Line(x, y, runs)


def _papermage(info: dict[str, str] | None = None) -> bytes:
    lines = [
        Line(30, 250, [Run("arXiv:2308.02943v1 [cs.CL] 5 Aug 2023", 20)], rotated=True),
        text_line(90, 740, "PaperMage: A Unified Toolkit for Processing, Representing, and", 14.3, "F2"),
        text_line(150, 724, "Manipulating Visually-Rich Scientific Documents", 14.3, "F2"),
        _marked_names(80, 700, ["*1", "*2", "*1", "1"]),
        text_line(150, 684, "1Allen Institute for AI   2Massachusetts Institute of Technology", 11),
        text_line(72, 650, "Abstract", 12, "F2"),
        text_line(72, 636, "Despite growing interest in applying NLP to scientific documents, the tools are few.", 10),
        text_line(72, 60, "Proceedings of the 2023 Conference on Empirical Methods in Natural Language", 9, "F5"),
        text_line(72, 50, "Processing: System Demonstrations, pages 495-507, December 6-10, 2023", 9),
    ]
    return make_pdf([lines], info)


def test_a_title_with_the_author_line_beneath_is_not_glued_to_it() -> None:
    document = parse_file("papermage.pdf", _papermage())[0]
    assert document.title == TITLE
    assert document.metadata["title_source"] == "layout"
    assert document.metadata["authors"] == AUTHORS and document.metadata["authors_source"] == "layout"
    assert document.metadata["year"] == 2023 and document.metadata["year_source"] == "venue"
    assert document.metadata["arxiv"] == "2308.02943" and document.metadata["venue_kind"] == "proceedings"


def test_metadata_with_names_glued_onto_the_title_loses_them() -> None:
    document = parse_file("papermage.pdf", _papermage({"Title": f"{TITLE} Kyle Lo Zejiang Shen"}))[0]
    assert document.title == TITLE


def test_names_set_apart_by_space_alone_are_split() -> None:
    lines = [
        text_line(100, 720, "Sparse Retrieval at Scale", 17, "F2"),
        Line(100, 690, [Run("Ana Silva", 11)]),
        Line(260, 690, [Run("Bruno Costa", 11)]),
        Line(420, 690, [Run("Chen Wei", 11)]),
        text_line(100, 676, "University of Lisbon", 10),
        text_line(100, 640, "Abstract", 12, "F2"),
    ]
    document = parse_file("sparse.pdf", make_pdf([lines]))[0]
    assert document.title == "Sparse Retrieval at Scale"
    assert document.metadata["authors"] == ["Ana Silva", "Bruno Costa", "Chen Wei"]
    assert "year" not in document.metadata, "no year printed and no metadata date: none invented"


def test_the_metadata_author_list_wins_only_when_page_one_prints_every_name() -> None:
    lines = [
        text_line(100, 720, "Sparse Retrieval at Scale", 17, "F2"),
        text_line(100, 690, "Ana Silva, Bruno Costa and Chen Wei", 11),
        text_line(100, 640, "Abstract", 12, "F2"),
    ]
    printed = parse_file("a.pdf", make_pdf([lines], {"Author": "Ana Silva; Bruno Costa"}))[0]
    assert printed.metadata["authors"] == ["Ana Silva", "Bruno Costa", "Chen Wei"]
    assert printed.metadata["authors_source"] == "layout"
    unprinted = parse_file("b.pdf", make_pdf([lines[:1] + lines[2:]], {"Author": "Dana Moor; Eli Park"}))[0]
    assert "authors" not in unprinted.metadata


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Waleed Ammar, Dirk Groeneveld, and Oren Etzioni", ["Waleed Ammar", "Dirk Groeneveld", "Oren Etzioni"]),
        ("Rui Wang1 and Günter Neumann2", ["Rui Wang", "Günter Neumann"]),
        ("AMIR SHEIKHAHMADI, MOHAMMAD A. NEMATBAKHSH, AND ARMAN SHOKROLLAHI",
         ["Amir Sheikhahmadi", "Mohammad A. Nematbakhsh", "Arman Shokrollahi"]),
        ("Nicolas Andre´ | , Jean-Pierre Raskin", ["Nicolas André", "Jean-Pierre Raskin"]),
        ("Zoltan Gy ´ ongyi Hector Garcia-Molina Jan Pedersen", ["Zoltan Gyóngyi", "Hector Garcia-Molina",
                                                                 "Jan Pedersen"]),
        ("Katharine M. Mullen | Ivo H. M. van Stokkum", ["Katharine M. Mullen", "Ivo H. M. van Stokkum"]),
        ("Department of Computer Science, University of Washington", []),
        ("{armanc,sergey}@allenai.org", []),
        ("Abstract", []),
        ("Typos, paraphrases and adversarial inputs are common in practice", []),
    ],
)  # fmt: skip
def test_author_lines_split_into_names(line: str, names: list[str]) -> None:
    assert parse_names(line) == names


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("Arman Cohan ; Sergey Feldman ; Daniel Weld", ["Arman Cohan", "Sergey Feldman", "Daniel Weld"]),
        ("Zoltan Gyongyi, Hector Garcia-Molina (Stanford Univ.), Jan Pedersen (Yahoo, Inc.)",
         ["Zoltan Gyongyi", "Hector Garcia-Molina", "Jan Pedersen"]),
        ("ibm", []),
        ("chrisq", []),
        ("End User Computing Services", []),
    ],
)  # fmt: skip
def test_metadata_author_entries(value: str, names: list[str]) -> None:
    assert metadata_authors(value) == names


def test_strip_authors_cuts_names_off_the_end_only() -> None:
    assert strip_authors(f"{TITLE} Kyle Lo Zejiang Shen", AUTHORS) == TITLE
    assert strip_authors("Notes on Kyle", AUTHORS) == "Notes on Kyle"


TODAY = date(2025, 6, 1)


@pytest.mark.parametrize(
    ("lines", "metadata", "year", "source"),
    [
        (["arXiv:2302.07302v1 [cs.CL] 14 Feb 2023"], {}, 2023, "arxiv"),
        (["Proceedings of NAACL-HLT 2018, pages 84–91", "c 2017 Association for Computational Linguistics"], {},
         2018, "venue"),
        (["Proceedings of the 30th VLDB Conference,", "Toronto, Canada, 2004"], {}, 2004, "venue"),
        (["© 2010 Datta et al; licensee BioMed Central Ltd."], {}, 2010, "copyright"),
        (["978-1-4577-9538-2/11/$26.00 ©2011 IEEE 1081"], {}, 2011, "copyright"),
        (["GLIA 24:39–49 (1998)"], {}, 1998, "venue"),
        (["as shown by the workshop (Lample et al., 2016)."], {"CreationDate": "D:20200519234246Z"}, 2020,
         "metadata"),
        (["© 2099 Nobody"], {"CreationDate": "D:1900"}, None, ""),
    ],
)  # fmt: skip
def test_the_year_comes_from_venue_copyright_arxiv_then_metadata(
    lines: list[str], metadata: dict[str, str], year: int | None, source: str
) -> None:
    venue = read_venue(lines, metadata, TODAY)
    assert (venue.year, venue.year_source) == (year, source)


def test_years_outside_1950_to_this_year_are_not_years() -> None:
    assert plausible_year("founded 1949, cited 2099", TODAY) is None
    assert plausible_year("Vol. 3 (1950)", TODAY) == 1950


def test_venue_doi_and_arxiv_id() -> None:
    venue = read_venue(["Journal of Physics: Conference Series 2188 (2022) 012011",
                        "doi:10.1088/1742-6596/2188/1/012011"], {}, TODAY)  # fmt: skip
    assert (venue.venue, venue.venue_kind) == ("Journal of Physics: Conference Series", "journal")
    assert venue.doi == "10.1088/1742-6596/2188/1/012011"
    assert read_venue(["arXiv:2201.13352v1 [physics.app-ph] 31 Jan 2022"], {}, TODAY).arxiv == "2201.13352"


def _stored(parsed, metadata=None):
    """A stand-in for the stored Document the export view reads."""
    return SimpleNamespace(pk=1, docid="papermage", title=parsed.title, metadata=metadata or parsed.metadata,
                           source_name="uploads/papermage.pdf")  # fmt: skip


def _entries(text: str) -> list[dict[str, str]]:
    """A tiny BibTeX reader: each entry's type, key and fields (values in one pair of braces)."""
    entries = []
    for kind, key, body in re.findall(r"@(\w+)\{([^,]+),\n(.*?)\n\}", text, re.S):
        fields = dict(re.findall(r"^  (\w+) = \{(.*)\},?$", body, re.M))
        entries.append({"type": kind, "key": key, **fields})
    return entries


def test_the_bibtex_and_csl_json_of_a_parsed_pdf_have_authors_year_venue_and_eprint() -> None:
    parsed = parse_file("papermage.pdf", _papermage())[0]
    [entry] = _entries(bibtex(_sources([_stored(parsed)])))
    assert entry["type"] == "inproceedings" and entry["key"] == "lo2023papermage"
    assert entry["author"] == "Lo, Kyle and Shen, Zejiang and Newman, Benjamin and Chang, Joseph Chee"
    assert entry["year"] == "2023" and entry["booktitle"].startswith("Proceedings of the 2023 Conference")
    assert entry["eprint"] == "2308.02943" and entry["archivePrefix"] == "arXiv"
    [item] = csl_items(_sources([_stored(parsed)]))
    assert item["type"] == "paper-conference" and item["issued"] == {"date-parts": [[2023]]}
    assert item["author"][0] == {"family": "Lo", "given": "Kyle"}


def test_an_imported_librarys_metadata_wins_over_what_was_parsed() -> None:
    parsed = parse_file("papermage.pdf", _papermage())[0]
    entry = LibraryEntry("lo2023", "PaperMage", ("Kyle Lo", "Luca Soldaini"), 2024, "Journal of Toolkits", "10.1/pm")
    match = SimpleNamespace(entry=entry, how="title")
    library = SimpleNamespace(name="refs.bib", job_id=None)
    title, metadata = _apply(parsed.title, parsed.metadata, match, library)
    assert metadata["authors"] == ["Kyle Lo", "Luca Soldaini"] and metadata["authors_source"] == "library"
    assert metadata["year"] == 2024 and metadata["year_source"] == "library"
    [bib] = _entries(bibtex(_sources([_stored(parsed, metadata)])))
    assert bib["type"] == "article" and bib["journal"] == "Journal of Toolkits", "the library's venue, not EMNLP"
    assert bib["author"] == "Lo, Kyle and Soldaini, Luca" and bib["year"] == "2024" and bib["doi"] == "10.1/pm"
    assert title == "PaperMage"


@pytest.mark.slow  # real PDFs parsed whole: ~12 s on 2 cores
def test_real_pdfs_get_their_titles_authors_and_years() -> None:
    """The 22 real PDFs of ../shared/data against the truth in tests/ingest/real_bylines.py."""
    require(DATA)
    truths = known_bylines()
    wrong_titles, wrong_authors, wrong_years = [], [], []
    for path, truth in truths.items():
        document = parse_file(path.name, path.read_bytes())[0]
        meta = document.metadata
        if comparable(document.title) != comparable(truth.title):
            wrong_titles.append((path.stem, document.title))
        found = family_set([name_parts(a)[0] for a in meta.get("authors", [])])
        if found != family_set(truth.families):
            wrong_authors.append((path.stem, meta.get("authors")))
        if truth.year is not None and meta.get("year") != truth.year:
            wrong_years.append((path.stem, meta.get("year")))
    assert len(truths) >= 22
    assert wrong_titles == [] and wrong_authors == []
    # NIPS 2008's PDF prints no year and its metadata has no date.
    assert wrong_years == [("image_denoising_convnets", None)]


@pytest.mark.django_db
def test_the_document_page_shows_three_authors_then_et_al_and_the_year(logged_in_client, user):
    from evidence.models import Collection, Document

    collection = Collection.objects.create(owner=user, name="Bylines")
    metadata = {"authors": [*AUTHORS, "Luca Soldaini"], "year": 2023, "authors_source": "layout"}
    document = Document.objects.create(collection=collection, docid="pm", title=TITLE, source_name="pm.pdf",
                                       source_format="pdf", text="PaperMage.", metadata=metadata)  # fmt: skip
    page = logged_in_client.get(f"/documents/{document.pk}/").content.decode()
    assert "Kyle Lo, Zejiang Shen, Benjamin Newman et al. · 2023" in page
    assert "Joseph Chee Chang" not in page
