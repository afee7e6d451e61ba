"""Which package may import which: the arrows README's Architecture section names, checked on every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "evidence"
# package (or module) -> the app's packages or modules it must never import
FORBIDDEN = {
    "retrieval": {"agent", "judge", "views", "api", "tasks"},
    "judge": {"agent", "views", "api", "tasks"},
    "ingest": {"agent", "views", "api"},
    "agent": {"views", "api", "tasks"},
    "eval": {"views", "api"},
    "models": {"views", "api", "agent"},
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every `evidence.*` module a file imports, relative imports resolved, with line numbers."""
    package = ["evidence", *path.relative_to(APP).parts[:-1]]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("evidence.")]


def layer_of(path: Path) -> str:
    return path.relative_to(APP).parts[0].removesuffix(".py")


def violations() -> list[str]:
    out = []
    for path in sorted(APP.rglob("*.py")):
        banned = FORBIDDEN.get(layer_of(path), set())
        for line, name in imported_modules(path):
            target = name.split(".")[1]
            if target in banned:
                out.append(f"{path.relative_to(APP.parent)}:{line} imports {name}")
    return out


def test_no_module_imports_across_a_forbidden_arrow():
    assert violations() == []


@pytest.mark.parametrize(
    ("source", "line", "expected"),
    [
        ("retrieval/piserini.py", "from ..agent.tools import excerpt_around", "evidence.agent.tools.excerpt_around"),
        ("agent/fanout.py", "from ..tasks import judge_batch", "evidence.tasks.judge_batch"),
        ("agent/loop.py", "import evidence.views.runs", "evidence.views.runs"),
    ],
)
def test_the_check_sees_a_forbidden_import(tmp_path, monkeypatch, source, line, expected):
    fake = tmp_path / "evidence" / source
    fake.parent.mkdir(parents=True)
    fake.write_text(line + "\n")
    monkeypatch.setattr(f"{__name__}.APP", tmp_path / "evidence")
    assert [name for _, name in imported_modules(fake)] == [expected]
    assert violations() == [f"evidence/{source}:1 imports {expected}"]
