"""Tests that need ../shared/data are skipped on a plain clone and fail under CI=true, where the data must be."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.real_data import in_ci, missing_data, require


def test_it_passes_a_folder_that_is_there(tmp_path: Path):
    assert missing_data(tmp_path, {}) is None and missing_data(tmp_path, {"CI": "true"}) is None
    assert require(tmp_path, {"CI": "true"}) == tmp_path


def test_a_missing_folder_skips_on_a_users_clone(tmp_path: Path):
    gone = tmp_path / "absent"
    action, reason = missing_data(gone, {})
    assert action == "skip" and str(gone) in reason
    with pytest.raises(pytest.skip.Exception, match="needs the real data"):
        require(gone, {"CI": "false"})


def test_a_missing_folder_fails_under_ci(tmp_path: Path):
    gone = tmp_path / "absent"
    assert missing_data(gone, {"CI": "true"}) == ("fail", f"{gone} is missing, and CI=true needs the real data in "
                                                           "../shared/data")  # fmt: skip
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        require(gone, {"CI": "true"})


def test_only_a_true_ci_variable_means_ci():
    assert [in_ci({"CI": v}) for v in ("true", "TRUE", "1", " yes ")] == [True] * 4
    assert [in_ci(e) for e in ({}, {"CI": ""}, {"CI": "false"}, {"CI": "0"}, {"CIRCLE": "true"})] == [False] * 5


def test_no_test_module_looks_for_the_shared_data_its_own_way():
    """Every data test goes through `require` (the `shared_data` fixture or a call): none builds the path itself."""
    tests = Path(__file__).resolve().parents[1]
    own_way = " / ".join(['"shared"', '"data"'])  # written in two pieces, so this file does not match itself
    found = [path.relative_to(tests) for path in tests.rglob("*.py") if own_way in path.read_text()]
    assert found == [Path("real_data.py")]
