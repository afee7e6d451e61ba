"""Levels: every room of evidence/ sits on one, no import points up, no two rooms import each other, no modules
import each other in a circle; a planted import shows the checks see it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.foundation import import_graph
from tests.foundation.import_graph import APP, app_graph, cycles, module_graph, room


def test_no_modules_import_each_other_in_a_circle():
    assert cycles(module_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Each room of evidence/ (a package, one of agent's rooms, or a top-level module) sits on a level, a whole number; an
# import may point down or across a level, never up, and no two rooms import each other. A new room needs a level
# here: the test names it until it has one. docs/architecture.md draws these levels.
LAYERS: dict[int, set[str]] = {
    0: {"models", "logging", "errors", "names", "ratelimit", "document_search", "encode", "static_serving"},
    1: {"streams", "retrieval"},  # a run's event stream on the models; the index on the embedding model
    2: {"text"},  # understanding text: uses the index's analyzer; the judge, the answers and the agent use it
    3: {"ingest", "judge"},
    4: {"answers", "pdfpages"},
    5: {"reader"},  # the reader model: above the answer layer it falls back to, below the agent that uses it
    6: {"run_state"},  # a run's record (config, stored answer, lifecycle): below the agent and services that act
    # agent/ is a stack of rooms: llm < core (the floor) < readers < planning (the LLM planner) < systems < research.py
    7: {"agent.llm"},
    8: {"agent.core"},
    9: {"agent.readers"},
    10: {"agent.planning"},
    11: {"agent.systems"},
    12: {"agent"},  # agent/research.py, the one way into a run's research
    13: {"eval", "presenting", "schemas"},
    14: {"services"},  # the one way into each action: runs, uploads, evaluations (and their runner), the reaper
    15: {"auth_keys", "tasks", "forms"},
    # the edges: pages, the API, and the wings (Pi-Serini's backend, the MCP server) beside them
    16: {"views", "api", "piserini", "mcp", "health", "metrics"},
    17: {"management", "urls", "admin", "middleware", "templatetags"},
    18: {"apps"},
}


LAYER_OF = {name: layer for layer, names in LAYERS.items() for name in names}


def upward_arrows(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for source, targets in graph.items():
        for target in targets:
            a, b = room(source), room(target)
            if a != b and LAYER_OF[b] > LAYER_OF[a]:
                found.append(f"{source} -> {target}")
    return sorted(found)


def two_way_ties(graph: dict[str, set[str]], by: Callable[[str], str] = room) -> list[tuple[str, str]]:
    """Pairs of rooms (or, `by` a module's top package, packages) that import each other, directly, through a
    function-level import or through other modules of theirs."""
    arrows = {(by(s), by(t)) for s, targets in graph.items() for t in targets if "." in s and "." in t}
    return sorted((a, b) for a, b in arrows if a < b and (b, a) in arrows)


def package(module: str) -> str:
    return module.split(".")[1]


def test_every_package_has_a_layer_and_no_import_points_up():
    graph = app_graph()
    assert sorted({room(m) for m in graph if "." in m} - set(LAYER_OF)) == []
    assert upward_arrows(graph) == []


def test_no_two_rooms_or_packages_import_each_other():
    graph = app_graph()
    assert two_way_ties(graph) == []
    assert two_way_ties(graph, by=package) == []


def test_the_layer_check_sees_an_arrow_pointing_up():
    assert upward_arrows({"evidence.models.runs": {"evidence.views.runs"}}) == [
        "evidence.models.runs -> evidence.views.runs"
    ]


def test_the_tie_check_sees_two_packages_tied_through_their_rooms():
    graph = {
        "evidence.agent.core.recorder": {"evidence.services.runs"},
        "evidence.services.runs": {"evidence.agent"},
    }
    assert two_way_ties(graph, by=package) == [("agent", "services")]
    assert two_way_ties(graph) == []  # agent.core and agent are different rooms: only the packages are tied


def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str) -> None:
    """A copy of evidence/ with one more module, which the checks below then read in place of the app."""
    copy = tmp_path / "evidence"
    for path in APP.rglob("*.py"):
        if "migrations" not in path.parts:
            target = copy / path.relative_to(APP)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text())
    (copy / module).write_text(source)
    monkeypatch.setattr(import_graph, "APP", copy)


def test_a_planted_lazy_upward_import_fails_the_layer_check(tmp_path, monkeypatch):
    source = "def cancel(run_id):\n    from ..services.runs import cancel_run\n    return cancel_run(run_id)\n"
    planted(tmp_path, monkeypatch, "run_state/planted.py", source)
    assert upward_arrows(app_graph()) == ["evidence.run_state.planted -> evidence.services.runs"]
    assert two_way_ties(app_graph()) == [("run_state", "services")]


def test_a_planted_upward_import_in_agent_fails_the_layer_check(tmp_path, monkeypatch):
    planted(tmp_path, monkeypatch, "agent/core/planted.py", "from ...services import runs\n")
    assert upward_arrows(app_graph()) == ["evidence.agent.core.planted -> evidence.services.runs"]
    assert two_way_ties(app_graph(), by=package) == [("agent", "services")]
