"""Every test can fail: none is only a docstring or `pass`."""

from __future__ import annotations

import ast

from tests.foundation.import_graph import APP

TESTS = APP.parent / "tests"


def hollow_tests(source: str) -> list[str]:
    """Test functions whose body is only a docstring, `pass` or `...`: they pass whatever the code does."""
    hollow = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            body = [
                statement
                for statement in node.body
                if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
                and not isinstance(statement, ast.Pass)
            ]
            if not body:
                hollow.append(node.name)
    return hollow


def test_no_test_is_only_a_docstring_or_pass():
    found = [
        f"{path.relative_to(TESTS)}::{name}"
        for path in sorted(TESTS.rglob("test_*.py"))
        for name in hollow_tests(path.read_text())
    ]
    assert found == []


def test_the_hollow_check_sees_an_empty_test():
    source = "\n".join(
        [
            'def test_a():\n    """Only words."""',
            "def test_b():\n    pass",
            "def test_c():\n    ...",
            "def test_d():\n    assert 1",
        ]
    )
    assert hollow_tests(source) == ["test_a", "test_b", "test_c"]
