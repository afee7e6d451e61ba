"""The shape of evidence/'s import graph in figures: what issue 45 set as done (0 upward arrows, 0 two-way ties
between rooms or packages, at most 18 modules at evidence/'s root, none over 400 lines).

    .venv/bin/python bench/import_graph.py

Reads the source only (lazy imports included, typing-only ones left out) through the architecture tests' own
graph (tests/foundation/import_graph.py) and levels (tests/foundation/test_levels.py); prints one JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.foundation.import_graph import APP, app_graph, cycles, module_graph, room  # noqa: E402
from tests.foundation.test_levels import package, two_way_ties, upward_arrows  # noqa: E402


def figures() -> dict[str, object]:
    graph = app_graph()
    sizes = {
        path.relative_to(APP.parent).as_posix(): len(path.read_text().splitlines())
        for path in APP.rglob("*.py")
        if "migrations" not in path.parts
    }
    largest = max(sizes, key=sizes.__getitem__)
    return {
        "modules": len(sizes),
        "rooms": len({room(m) for m in graph if "." in m}),
        "root_modules": len(list(APP.glob("*.py"))),
        "largest_module": {largest: sizes[largest]},
        "over_400_lines": sorted(name for name, lines in sizes.items() if lines > 400),
        "upward_arrows": upward_arrows(graph),
        "two_way_ties_between_rooms": two_way_ties(graph),
        "two_way_ties_between_packages": two_way_ties(graph, by=package),
        "circles": cycles(module_graph()),
    }


if __name__ == "__main__":
    print(json.dumps(figures()))
