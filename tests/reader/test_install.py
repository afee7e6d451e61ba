"""`make reader` builds the runtime: its flags key the wheel cache; a runtime that dies on a prompt is caught."""

import importlib.util
import os
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install_reader.py"


@pytest.fixture
def install():
    spec = importlib.util.spec_from_file_location("install_reader_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_native_x86_build_leaves_amx_out_and_its_flags_key_the_wheel_cache(install, monkeypatch):
    if os.uname().machine == "x86_64":
        assert "-mno-amx-tile" in install.COMPILER_FLAGS and "-mno-amx-int8" in install.COMPILER_FLAGS
    key = install.cpu_key()
    monkeypatch.setattr(install, "COMPILER_FLAGS", "")
    assert install.cpu_key() != key  # a wheel built with other flags is never reused


def test_a_runtime_killed_by_a_signal_on_its_first_prompt_is_reported_in_a_sentence(install, monkeypatch, tmp_path):
    crash = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    monkeypatch.setattr(install, "SMOKE", crash)
    reason = install.runtime_runs(tmp_path / "model.gguf")
    assert reason is not None and "signal 4" in reason and "instruction this CPU refuses" in reason
    monkeypatch.setattr(install, "SMOKE", "pass")
    assert install.runtime_runs(tmp_path / "model.gguf") is None
