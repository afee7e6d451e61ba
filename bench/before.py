"""Load another checkout's retrieval engine next to this one, so a bench times before and after in one process.

git archive <commit> evidence/retrieval | tar -x -C /tmp/before     then pass --before /tmp/before
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

NAMES = ("types", "smallfloat", "fusion", "bm25", "hybrid")


def load_before(root: Path) -> dict[str, ModuleType]:
    """Import root's evidence/retrieval/{types,smallfloat,fusion,bm25,hybrid}.py as private copies."""
    current = {name: sys.modules.get(f"evidence.retrieval.{name}") for name in NAMES}
    loaded: dict[str, ModuleType] = {}
    try:
        for name in NAMES:
            path = Path(root) / "evidence" / "retrieval" / f"{name}.py"
            spec = importlib.util.spec_from_file_location(f"evidence.retrieval.{name}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # the old modules import each other by these names
            spec.loader.exec_module(module)
            loaded[name] = module
    finally:
        for name, module in current.items():
            if module is None:
                sys.modules.pop(f"evidence.retrieval.{name}", None)
            else:
                sys.modules[f"evidence.retrieval.{name}"] = module
    return loaded


def as_tuples(hits) -> list[tuple[str, float, int | None]]:
    """Return hits as plain tuples, to compare two engines' rankings."""
    return [(hit.docid, hit.score, hit.passage) for hit in hits]
