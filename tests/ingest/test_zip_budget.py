"""A zip's expanded size, member count and ratio are judged as a whole, from its central directory, at once."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from evidence.ingest.parsers import expand_upload
from evidence.ingest.types import IngestError, Limits

MIB = 1024 * 1024


def many_small_members(count: int, size: int = MIB) -> bytes:
    """A small zip of `count` highly compressible members of `size` bytes (each under the per-member check)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(count):
            line = b"%d caffeine and sleep " % i
            zf.writestr(f"part{i:03}.txt", (line * (size // len(line) + 1))[:size])
    return buffer.getvalue()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    data = many_small_members(400)
    assert len(data) < 2 * MIB  # small enough to pass every upload limit
    return data


@pytest.fixture
def never_extract(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a member was opened: the archive should be refused before extracting anything")

    monkeypatch.setattr(zipfile.ZipFile, "open", refuse)


# Building the 400 MB archive takes a few seconds. Refusing it reads only the central directory: `never_extract` fails
# the test if any member is opened. How fast that is belongs to a benchmark, not to a timed unit test.
@pytest.mark.slow
def test_it_refuses_400_small_members_from_the_central_directory_without_opening_one(bomb, never_extract):
    with pytest.raises(IngestError) as refused:
        expand_upload("many.zip", bomb)

    assert str(refused.value) == "many.zip expands to 400 MB, over the limit of 200 MB per upload: split it."


@pytest.mark.slow
def test_the_whole_archive_ratio_refuses_it_even_under_a_generous_total(bomb, never_extract):
    generous = Limits(max_zip_total_bytes=10_000 * MIB)
    with pytest.raises(IngestError, match=r"looks like a zip bomb: it expands \d+ times, to 400 MB"):
        expand_upload("many.zip", bomb, generous)


def test_a_few_small_compressible_members_still_pass():
    members = expand_upload("notes.zip", many_small_members(3, 64 * 1024))
    assert [name for name, _ in members] == [f"notes.zip/part{i:03}.txt" for i in range(3)]


@pytest.fixture
def eleven_members() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for i in range(11):
            zf.writestr(f"f{i}.txt", b"x")
    return buffer.getvalue()


def test_it_refuses_too_many_members_with_a_plain_sentence(eleven_members, never_extract):
    with pytest.raises(IngestError, match=r"has 11 entries, over the limit of 10 per upload: split it"):
        expand_upload("many.zip", eleven_members, Limits(max_zip_members=10))


def test_a_zip_of_the_real_papers_passes(shared_data: Path):
    papers = sorted(p for p in (shared_data / "papers").glob("*/*") if p.is_file() and not p.name.endswith(".tar.gz"))
    assert len(papers) >= 13
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in papers:
            zf.write(path, f"papers/{path.parent.name}/{path.name}")

    members = expand_upload("papers.zip", buffer.getvalue())

    assert len(members) == len(papers)
    assert sum(len(data) for _, data in members) == sum(p.stat().st_size for p in papers)
