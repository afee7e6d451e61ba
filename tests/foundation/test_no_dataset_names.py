"""No runtime module of System 1, System 2 or retrieval names a benchmark data set (issue 16).

A benchmark may pass configuration to a run, but the product's readers are chosen from the question and
its candidates: code under these packages that names a data set, even in a comment, reads as a
dependency on it. Offline fitting lives in bench/fitting, the benchmark feature in evidence/eval.
"""

from __future__ import annotations

import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "evidence"
RUNTIME_PACKAGES = ("judge", "agent", "retrieval")  # nothing allowlisted in these
DATASET = re.compile(r"sci[-_ ]?fact|qasper|hotpot|real[-_ ]?qa|browse[-_ ]?comp", re.IGNORECASE)


def dataset_mentions(root: Path = APP) -> list[str]:
    """Return 'path:line: text' for every line of a runtime module that names a data set."""
    out = []
    for package in RUNTIME_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if DATASET.search(line):
                    out.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return out


def test_no_runtime_module_names_a_dataset():
    assert dataset_mentions() == []


def test_the_check_sees_a_name_in_a_comment(tmp_path):
    module = tmp_path / "evidence" / "judge" / "reader.py"
    module.parent.mkdir(parents=True)
    module.write_text('"""Reads abstracts."""\nWINDOW = 3  # tuned on SciFact\nOTHER = "BrowseComp-Plus"\n')
    assert dataset_mentions(tmp_path / "evidence") == [
        "evidence/judge/reader.py:2: WINDOW = 3  # tuned on SciFact",
        'evidence/judge/reader.py:3: OTHER = "BrowseComp-Plus"',
    ]
