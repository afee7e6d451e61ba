"""Safe zip expansion: refuse traversal, nesting, bombs and oversize archives."""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import PurePosixPath

from ..types import IngestError, Limits

CHUNK = 1024 * 1024
MB = 1024 * 1024
# Below this expanded size an archive is cheap whatever its ratio (a few pages of repeated text).
RATIO_FLOOR_BYTES = 8 * MB
ZIP_MAGIC = b"PK\x03\x04"


def is_zip(filename: str, data: bytes) -> bool:
    """Tell whether an upload is a zip archive (by extension, or by magic when it has none)."""
    name = PurePosixPath(filename.replace("\\", "/")).name.lower()
    if name.endswith(".zip"):
        return True
    return "." not in name and data.startswith(ZIP_MAGIC)


def _unsafe(name: str) -> bool:
    """Tell whether a member path could escape the extraction folder."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        return True
    return ".." in posix.split("/")


def _skipped(name: str) -> bool:
    """Tell whether a member is macOS or dotfile clutter."""
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    return not parts or parts[0] == "__MACOSX" or any(p.startswith(".") for p in parts)


def _mb(size: float) -> str:
    return f"{size / MB:.0f}" if size >= 10 * MB else f"{size / MB:.1f}"


def _check_headers(zipname: str, infos: list[zipfile.ZipInfo], limits: Limits) -> None:
    """Refuse an archive from its central directory (declared sizes, member count) before decompressing anything."""
    if len(infos) > limits.max_zip_members:
        raise IngestError(
            zipname, f"has {len(infos)} entries, over the limit of {limits.max_zip_members} per upload: split it"
        )
    total = compressed = 0
    for info in infos:
        if _unsafe(info.filename):
            raise IngestError(
                zipname, f"has an unsafe member path {info.filename!r}: zip the files again with plain relative paths"
            )
        if info.flag_bits & 0x1:
            raise IngestError(zipname, f"has an encrypted member {info.filename!r}: upload an unencrypted zip")
        if info.filename.lower().endswith(".zip"):
            raise IngestError(zipname, f"contains a nested zip {info.filename!r}: unzip it and upload its files")
        total += info.file_size
        compressed += info.compress_size
        # Tiny files compress absurdly well (a page of spaces), so only large members count as bombs here;
        # many small ones are caught by the whole-archive checks below.
        if info.file_size > max(limits.max_compression_ratio * max(info.compress_size, 1), CHUNK):
            raise IngestError(
                zipname, f"looks like a zip bomb ({info.filename!r} expands too much): upload its files unzipped"
            )
    if total > limits.max_zip_total_bytes:
        raise IngestError(
            zipname,
            f"expands to {_mb(total)} MB, over the limit of {_mb(limits.max_zip_total_bytes)} MB per upload: split it",
        )
    if total > RATIO_FLOOR_BYTES and total > limits.max_compression_ratio * max(compressed, 1):
        raise IngestError(
            zipname,
            f"looks like a zip bomb: it expands {total / max(compressed, 1):.0f} times, to {_mb(total)} MB "
            f"(the limit is {limits.max_compression_ratio:.0f} times): upload its files unzipped",
        )


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, zipname: str, limits: Limits) -> bytes:
    """Decompress one member in chunks, stopping as soon as it passes its declared or allowed size."""
    cap = min(info.file_size, budget)
    ratio_cap = max(limits.max_compression_ratio * max(info.compress_size, 1), CHUNK)
    out = bytearray()
    with zf.open(info) as member:
        while chunk := member.read(CHUNK):
            out += chunk
            if len(out) > cap or len(out) > ratio_cap:
                raise IngestError(
                    zipname, f"member {info.filename!r} expands past its limits: upload that file on its own"
                )
    return bytes(out)


def expand_zip(zipname: str, data: bytes, limits: Limits) -> list[tuple[str, bytes]]:
    """Return the safe file members of a zip as ("zipname/member", bytes) pairs."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            _check_headers(zipname, infos, limits)
            members: list[tuple[str, bytes]] = []
            budget = limits.max_zip_total_bytes
            for info in infos:
                if info.is_dir() or _skipped(info.filename):
                    continue
                content = _read_member(zf, info, budget, zipname, limits)
                budget -= len(content)
                if content.startswith(ZIP_MAGIC):
                    raise IngestError(
                        zipname, f"contains a nested zip {info.filename!r}: unzip it and upload its files"
                    )
                members.append((f"{zipname}/{info.filename}", content))
            return members
    except IngestError:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        RuntimeError,
        NotImplementedError,
        ValueError,
    ) as exc:
        raise IngestError(
            zipname, "is not a readable zip archive: zip the files again and upload the new archive"
        ) from exc
