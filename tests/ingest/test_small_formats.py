"""Hand-written inputs for the formats without a real sample: text, Markdown, HTML, BrowseComp."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from evidence.ingest.parsers import detect_format, parse_file
from evidence.ingest.types import ParsedDocument

MARKDOWN = b"""# Evidence desk

Every answer is traceable
to **exact** spans, e.g. offsets. See [the spec](http://x/y).

## Method ::: Details

- First item.
- Second item
  continues here.

Setext heading
--------------

```
code  block
```
"""

HTML = b"""<html><head><title>A page</title><style>p {color: red}</style></head>
<body><nav>Home | About</nav><h1>Main heading</h1>
<p>First <b>bold</b> paragraph.<br>Still first. <!-- a comment --> Tail.</p>
<script>var x = "<p>not text</p>";</script>
<div>Block <span>inline</span> text &amp; entity.<p>Nested para.</p>after nested.</div>
<h2>Second</h2><ul><li>One.</li><li>Two.</li></ul>
<table><tr><td>cell a</td><td>cell b</td></tr></table></body></html>"""


def _texts(doc: ParsedDocument, kind: str) -> list[tuple[str, str]]:
    """Return (label, text) for every region of a kind."""
    return [(r.label, doc.text[r.start : r.end]) for r in doc.regions_of(kind)]


def test_it_parses_plain_text(check_document: Callable[[ParsedDocument], None]) -> None:
    data = b"Title line\r\n\r\nA paragraph that is\r\nwrapped over lines.\x00 Dr. No agrees.\n\n\n  \n"
    (doc,) = parse_file("notes.txt", data)
    check_document(doc)
    assert doc.title == "Title line"
    assert doc.text == "Title line\n\nA paragraph that is wrapped over lines. Dr. No agrees."
    assert [t for _, t in _texts(doc, "sentence")][1:] == ["A paragraph that is wrapped over lines.", "Dr. No agrees."]
    assert doc.docid is None and doc.source_format == "text"


def test_it_parses_markdown(check_document: Callable[[ParsedDocument], None]) -> None:
    (doc,) = parse_file("readme.md", MARKDOWN)
    check_document(doc)
    assert doc.title == "Evidence desk"
    assert "#" not in doc.text and "**" not in doc.text and "](" not in doc.text
    assert _texts(doc, "section") == [
        ("Evidence desk", "Evidence desk"),
        ("Method ::: Details", "Method ::: Details"),
        ("Setext heading", "Setext heading"),
    ]
    assert _texts(doc, "paragraph") == [
        ("Evidence desk", "Every answer is traceable to exact spans, e.g. offsets. See the spec."),
        ("Method ::: Details", "First item."),
        ("Method ::: Details", "Second item continues here."),
        ("Setext heading", "code  block"),
    ]


def test_it_parses_html(check_document: Callable[[ParsedDocument], None]) -> None:
    (doc,) = parse_file("page.htm", HTML)
    check_document(doc)
    assert doc.title == "A page"
    assert "<" not in doc.text and "color" not in doc.text and "Home" not in doc.text
    assert _texts(doc, "section") == [("Main heading", "Main heading"), ("Second", "Second")]
    assert [t for _, t in _texts(doc, "paragraph")] == [
        "First bold paragraph. Still first. Tail.",
        "Block inline text & entity.",
        "Nested para.",
        "after nested.",
        "One.",
        "Two.",
        "cell a cell b",
    ]


def test_it_parses_browsecomp_jsonl(check_document: Callable[[ParsedDocument], None]) -> None:
    lines = [
        {"docid": "123", "text": "Page heading\nline two\n\nSecond paragraph here.", "url": "https://e.x"},
        {"docid": "456", "title": "Given title", "text": "Body only."},
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    assert detect_format("docs.jsonl", data) == "browsecomp"
    docs = parse_file("docs.jsonl", data)
    for doc in docs:
        check_document(doc)
    assert [(d.docid, d.title) for d in docs] == [("123", "Page heading"), ("456", "Given title")]
    assert docs[0].text == "Page heading\nline two\n\nSecond paragraph here."
    assert docs[0].metadata == {"url": "https://e.x"}
    assert len(docs[0].regions_of("paragraph")) == 2


@pytest.mark.parametrize(
    ("filename", "data", "fmt"),
    [
        ("paper", b"%PDF-1.4 ...", "pdf"),
        ("x.HTML", b"<p>hi</p>", "html"),
        ("x.nxml", b"<article/>", "jats"),
        ("x.markdown", b"# hi", "markdown"),
        ("dump", b'{"doc_id": 1, "abstract": ["a"]}\n{"doc_id": 2, "abstract": ["b"]}\n', "scifact"),
        ("paper.json", b'{"paper_id": "1", "pdf_parse": {"body_text": []}}', "s2orc"),
    ],
)
def test_it_detects_formats(filename: str, data: bytes, fmt: str) -> None:
    assert detect_format(filename, data) == fmt


def test_it_normalises_unicode_and_controls() -> None:
    (doc,) = parse_file("n.txt", "Cafe\u0301 \x07bell\tand\u00a0space.".encode())
    assert doc.text == "Café bell and space."


@pytest.mark.parametrize(
    "data",
    [
        "<p>café – ok</p>".encode(),
        '<?xml version="1.0" encoding="utf-8"?><html><body><p>café – ok</p></body></html>'.encode(),
        '<html><head><meta charset="iso-8859-1"></head><body><p>café – ok</p></body></html>'.encode("cp1252"),
    ],
)
def test_it_reads_html_encodings(data: bytes) -> None:
    (doc,) = parse_file("page.html", data)
    assert doc.text == "café – ok"
