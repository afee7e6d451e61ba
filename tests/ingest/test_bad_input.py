"""Bad uploads: each one is an IngestError whose message names the file."""

from __future__ import annotations

import io
import os
import random
import zipfile
from pathlib import Path

import pytest

from evidence.ingest.parsers import detect_format, expand_upload, parse_file
from evidence.ingest.types import IngestError, Limits


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """Build a zip archive in memory."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buffer.getvalue()


def _refused(call, filename: str, *args: object, match: str = "") -> IngestError:
    """Run a call that must raise IngestError naming the file."""
    with pytest.raises(IngestError) as info:
        call(filename, *args)
    error = info.value
    assert error.filename == filename
    assert filename in str(error)
    assert str(error).endswith(".") and "\n" not in str(error)
    assert match in error.reason, error.reason
    return error


BLOB_SAFE = bytes.maketrans(b"%{[ \t\n\r\x0b\x0cP", b"x" * 10)  # never PDF, JSON or zip magic


@pytest.mark.parametrize(
    ("filename", "data", "match"),
    [
        ("empty.txt", b"", "is empty"),
        ("notes.docx", b"PK\x03\x04 something", "unsupported format"),
        # Fixed random bytes (a blob that happened to open with "[" read as JSON, failing 1 run in ~20).
        ("blob.bin", random.Random(7).randbytes(64).translate(BLOB_SAFE), "unsupported format"),
        ("latin1.txt", "café au lait".encode("latin-1"), "not valid UTF-8"),
        ("random.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 4, "not a readable PDF"),
        ("broken.json", b'{"paper_id": "1", "body_text": [', "malformed JSON"),
        ("table.json", b'{"rows": [1, 2, 3]}', "no known schema"),
        ("broken.nxml", b"<article><front></article>", "not well-formed XML"),
        ("other.xml", b"<rss><channel/></rss>", "not a JATS article"),
        ("blank.txt", b"  \n\n \t\n", "has no text"),
    ],
)
def test_it_refuses_bad_file(filename: str, data: bytes, match: str) -> None:
    _refused(parse_file, filename, data, match=match)


def test_it_refuses_a_file_over_the_size_limit() -> None:
    _refused(parse_file, "big.txt", b"word " * 100, Limits(max_file_bytes=100), match="over the limit")


def test_it_refuses_a_truncated_pdf(data_dir: Path) -> None:
    data = (data_dir / "papers/pdf/N18-3011.pdf").read_bytes()
    _refused(parse_file, "cut.pdf", data[: len(data) // 3], match="is truncated")


def test_it_refuses_a_pdf_without_text() -> None:
    # A minimal valid one-page PDF with no content stream: readable, but nothing to extract.
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ]
    body, offsets = b"%PDF-1.4\n", []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    body += b"trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    _refused(parse_file, "scan.pdf", body, match="no extractable text")


def test_it_names_the_bad_jsonl_line() -> None:
    good = b'{"docid": "d1", "text": "Hello there."}\n'
    data = good + good.replace(b"d1", b"d2") + b'{"docid": "d3", "text": \n' + good
    error = _refused(parse_file, "corpus.jsonl", data, match="line 3")
    assert "line 3" in str(error)


def test_it_names_the_bad_json_line() -> None:
    _refused(parse_file, "paper.json", b'{\n"paper_id": "1",\n"body_text": [}\n', match="line 3")


def test_it_says_zips_need_expanding() -> None:
    _refused(parse_file, "papers.zip", _zip({"a.txt": b"Hello."}), match="expand_upload")


@pytest.mark.parametrize("member", ["../evil.txt", "docs/../../evil.txt", "/etc/passwd", "C:/evil.txt"])
def test_it_refuses_an_unsafe_zip_member(member: str) -> None:
    _refused(expand_upload, "upload.zip", _zip({"ok.txt": b"fine", member: b"evil"}), match="unsafe")


def test_it_refuses_a_nested_zip() -> None:
    inner = _zip({"a.txt": b"inner"})
    _refused(expand_upload, "outer.zip", _zip({"inner.zip": inner}), match="nested zip")
    _refused(expand_upload, "sneaky.zip", _zip({"inner.dat": inner}), match="nested zip")


def test_it_refuses_a_zip_bomb() -> None:
    bomb = _zip({"zeros.txt": bytes(50 * 1024 * 1024)})
    assert len(bomb) < 100_000
    _refused(expand_upload, "bomb.zip", bomb, match="zip bomb")
    # Even with a lenient ratio, the total size limit refuses it from the headers alone.
    lenient = Limits(max_compression_ratio=1e9, max_zip_total_bytes=10 * 1024 * 1024)
    _refused(expand_upload, "bomb.zip", bomb, lenient, match="limit")


def test_it_stops_reading_when_headers_lie() -> None:
    data = bytearray(_zip({"a.txt": b"x" * 5_000_000}))
    # Shrink the declared size in the central directory: the reader must not trust it.
    declared = (5_000_000).to_bytes(4, "little")
    central = data.rfind(b"PK\x01\x02")
    at = data.find(declared, central)
    data[at : at + 4] = (1000).to_bytes(4, "little")
    _refused(expand_upload, "liar.zip", bytes(data))


def test_it_refuses_too_many_members() -> None:
    data = _zip({f"f{i}.txt": b"x" for i in range(5)})
    _refused(expand_upload, "many.zip", data, Limits(max_zip_members=4), match="entries")


def test_it_refuses_an_unreadable_zip() -> None:
    _refused(expand_upload, "junk.zip", b"PK\x03\x04" + os.urandom(200), match="not a readable zip")


def test_it_expands_a_good_zip() -> None:
    data = _zip(
        {
            "a.txt": b"Alpha.",
            "sub/b.md": b"# B\n\nBeta.",
            "sub/": b"",
            "__MACOSX/._a.txt": b"junk",
            ".DS_Store": b"junk",
        }
    )
    members = expand_upload("papers.zip", data)
    assert members == [("papers.zip/a.txt", b"Alpha."), ("papers.zip/sub/b.md", b"# B\n\nBeta.")]
    assert expand_upload("a.txt", b"Alpha.") == [("a.txt", b"Alpha.")]
    for name, content in members:
        assert parse_file(name, content)


def test_it_wraps_unexpected_parser_errors() -> None:
    # A QASPER paper whose full_text is not a list of sections breaks the parser deep inside.
    error = _refused(parse_file, "odd.json", b'{"p1": {"full_text": [1, 2]}}', match="could not be read as QASPER JSON")
    assert "Error" not in error.reason and "upload it again" in error.reason  # no exception class, a next step


def test_detect_format_refuses_unknown() -> None:
    _refused(detect_format, "x.exe", b"MZ\x90\x00", match="unsupported")
