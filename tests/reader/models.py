"""The installed reader models for the tests (`make reader` puts them in the data folder; `make test` runs it)."""

from pathlib import Path

import pytest
from django.conf import settings

from evidence.reader.files import QWEN_CODER_1_5B, SMOLLM2_135M, Weights


def installed(weights: Weights) -> Path:
    """The path of installed weights; without them the test fails under CI (where `make test` installs them first)
    and is skipped elsewhere, with the command that installs them."""
    import os

    path = Path(settings.EVIDENCE_MODEL_DIR) / weights.name
    if path.is_file() and path.stat().st_size == weights.size:
        return path
    reason = f"{weights.name} is not installed in {path.parent}: run `make reader`"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def small_model() -> Path:
    return installed(SMOLLM2_135M)


def shipped_model() -> Path:
    return installed(QWEN_CODER_1_5B)
