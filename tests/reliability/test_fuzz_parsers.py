"""Fuzz the parsers (hypothesis) with malformed PDFs, XML, JSON and zips: a clear IngestError or good documents,
never another exception, a crash, a hang, or half a document in the database."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidence.ingest.parsers import expand_upload, parse_file
from evidence.ingest.timelimit import parse_with_limits
from evidence.ingest.types import IngestError, Limits
from tests.reliability import bad_parsers

LIMITS = Limits(max_file_bytes=1_000_000, max_zip_total_bytes=5_000_000)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def make_pdf(text: str = "Caffeine delays sleep onset by about one hour.") -> bytes:
    """Build a minimal valid one-page PDF that shows `text` in Helvetica."""
    stream = b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    body, offsets = b"%PDF-1.4\n", []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return body + b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


JATS = (b'<?xml version="1.0"?><article><front><article-meta><title-group><article-title>Sleep</article-title>'
        b"</title-group></article-meta></front><body><sec><title>Results</title><p>Caffeine delays sleep.</p>"
        b"</sec></body></article>")


def check(parse, name: str, data: bytes) -> None:
    """Parse; the only acceptable failure is an IngestError naming the file, and documents must be whole."""
    try:
        docs = parse(name, data, LIMITS)
    except IngestError as error:
        assert str(error).startswith(name) and str(error).endswith(".")
        return
    for doc in docs:
        assert doc.text and "\x00" not in doc.text
        for region in doc.regions:
            assert 0 <= region.start < region.end <= len(doc.text)


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """A seed file cut, with bytes flipped, inserted or spliced in."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "splice"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=40))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 40))]
        elif op == "truncate":
            del data[at:]
        else:
            data[at:at] = draw(st.sampled_from([b"obj", b"endobj", b"stream", b"<<", b">>", b"/Length 99999999",
                                                b"<!DOCTYPE a [<!ENTITY e 'x'>]>", b"&e;", b"<p>", b"</sec>",
                                                b"\x00", b"\xff\xfe"]))
    return bytes(data)


@pytest.mark.slow
@FUZZ
@given(data=mutated(make_pdf()))
def test_malformed_pdfs_give_clear_errors(data):
    # pdfium is C code: a malformed PDF could crash it, so these run the way ingestion does, in a child process.
    check(lambda name, raw, limits: parse_with_limits(name, raw, limits, timeout_s=20), "fuzz.pdf", data)


@FUZZ
@given(data=mutated(JATS))
def test_malformed_xml_gives_clear_errors(data):
    check(parse_file, "fuzz.xml", data)


def test_xml_entity_bombs_are_refused_quickly():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY a "aaaaaaaaaa">'
            + b"".join(b'<!ENTITY %s "%s">' % (bytes([98 + i]), (b"&" + bytes([97 + i]) + b";") * 10)
                       for i in range(9))
            + b"]><article><body><p>&j;</p></body></article>")
    check(lambda name, raw, limits: parse_with_limits(name, raw, limits, timeout_s=20), "bomb.xml", bomb)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30,
)


@FUZZ
@given(value=json_values, extension=st.sampled_from([".json", ".jsonl", ""]))
def test_arbitrary_json_gives_clear_errors(value, extension):
    check(parse_file, f"fuzz{extension}", json.dumps(value).encode())


@FUZZ
@given(data=st.binary(max_size=300).map(lambda b: b"{" + b))
def test_malformed_json_bytes_give_clear_errors(data):
    check(parse_file, "fuzz.json", data)


def test_deeply_nested_json_is_refused():
    check(parse_file, "deep.json", b"[" * 100_000 + b"]" * 100_000)
    check(parse_file, "deep.json", b'{"a":' * 50_000 + b"1" + b"}" * 50_000)


member_names = st.one_of(
    st.text(min_size=1, max_size=20),
    st.sampled_from(["../evil.txt", "/etc/passwd", "a/../../b.txt", "C:\\x.txt", "..\\..\\x.txt", "ok/./a.md",
                     "__MACOSX/._a.md", ".hidden.md", "inner.zip", "a.md"]),
)


@st.composite
def zips(draw) -> bytes:
    buffer = io.BytesIO()
    compression = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
    with zipfile.ZipFile(buffer, "w", compression=compression) as zf:
        for _ in range(draw(st.integers(0, 4))):
            zf.writestr(draw(member_names), draw(st.binary(max_size=200)))
    data = buffer.getvalue()
    if draw(st.booleans()):
        data = draw(mutated(data))
    return data


@FUZZ
@given(data=zips())
def test_malformed_and_hostile_zips_give_clear_errors_and_safe_members(data):
    try:
        members = expand_upload("fuzz.zip", data, LIMITS)
    except IngestError as error:
        assert str(error).startswith("fuzz.zip")
        return
    for name, content in members:
        inner = name.removeprefix("fuzz.zip/").replace("\\", "/")
        assert not inner.startswith("/") and ".." not in inner.split("/") and inner[1:2] != ":"
        assert not content.startswith(b"PK\x03\x04")
        if content:
            check(parse_file, name, content)


def test_a_zip_bomb_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.txt", b"\0" * 50_000_000)
    with pytest.raises(IngestError, match=r"bomb|limit|expands"):
        expand_upload("bomb.zip", buffer.getvalue(), LIMITS)


def test_a_parser_past_its_time_limit_is_stopped():
    started = time.monotonic()
    with pytest.raises(IngestError, match=r"longer than 0\.5 s") as stopped:
        parse_with_limits("slow.txt", b"text", LIMITS, timeout_s=0.5, parser=bad_parsers.forever)
    assert time.monotonic() - started < 5
    assert stopped.value.retryable  # on a less busy machine another try may finish


def test_a_parser_that_crashes_gives_a_clear_error():
    with pytest.raises(IngestError, match="crashed the parser") as crashed:
        parse_with_limits("crash.pdf", b"%PDF-", LIMITS, parser=bad_parsers.crash)
    assert not crashed.value.retryable  # the same bytes crash it again


def test_a_parser_past_its_memory_cap_gives_a_clear_error():
    with pytest.raises(IngestError, match="memory"):
        parse_with_limits("hog.txt", b"text", LIMITS, memory_bytes=512 * 1024**2, parser=bad_parsers.hog)


def test_the_child_process_gives_the_same_documents_as_parsing_in_place():
    assert parse_with_limits("a.pdf", make_pdf(), LIMITS)[0].text == parse_file("a.pdf", make_pdf(), LIMITS)[0].text
