"""Cross-fitted heads for honest product-path evaluations on the sets the local heads were fitted on.

The paragraph head (QASPER dev 25) and the multi-hop heads (HotpotQA dev 30) are fitted on the very
questions the research loop is evaluated on. bench/fit_judge.py also fits one head per fold
without that fold (QASPER: one fold per paper; HotpotQA: 5 folds of questions) and writes
params/folds.json. An evaluation judges each question with its own fold's heads:

    LocalJudge(heads={**base_heads, **heads_for("qasper", paper_id)})

The full-data heads stay the product defaults.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from ..judge import PARAMS_DIR

FOLDS_FILE = "folds.json"
# Benchmarks none of whose questions the local heads were fitted on: the defaults are already honest.
# (SciFact's held-out claims; the fit claims are the first 80% of train, see bench/fitting/data.py split_claims.)
NOT_FITTED_ON = frozenset({"scifact"})


@cache
def _manifest(params_dir: Path) -> dict[str, Any]:
    """Return the parsed folds.json (read once per process)."""
    return json.loads((params_dir / FOLDS_FILE).read_text(encoding="utf-8"))


def heads_for(benchmark: str, key: str, params_dir: Path = PARAMS_DIR) -> dict[str, str]:
    """Return the head overrides for LocalJudge(heads=...) that were fitted without this paper or question.

    benchmark "qasper": key is a paper id or a QASPER question id; "hotpotqa": a question id.
    A key outside the manifest was never fitted on, so it gets {} (the product defaults).
    """
    name = benchmark.lower()
    if name in NOT_FITTED_ON:
        return {}
    manifest = _manifest(params_dir)
    if name not in manifest:
        raise ValueError(f"unknown benchmark {benchmark!r}; known: {sorted([*manifest, *NOT_FITTED_ON])}")
    entry = manifest[name]
    key = entry.get("questions", {}).get(key, key)  # a QASPER question id maps to its paper
    fold = entry["folds"].get(key)
    if fold is None:
        return {}
    return {kind: template.format(k=fold) for kind, template in entry["heads"].items()}
