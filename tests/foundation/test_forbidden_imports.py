"""Which package may never import which: the arrows docs/architecture.md forbids, checked on every module; and
strategy code, which touches no ORM."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.foundation import import_graph
from tests.foundation.import_graph import imported_modules, runtime_imports

# package (or module) -> the app's packages or modules it must never import
FORBIDDEN = {
    "retrieval": {"agent", "judge", "views", "api", "tasks"},
    "judge": {"agent", "views", "api", "tasks"},
    "ingest": {"agent", "views", "api"},
    # Views, the API and MCP call services (services/runs, services/uploads), never the Celery tasks.
    # and present a run's answer through presenting/, never through one another's modules.
    "views": {"tasks"},
    "api": {"tasks", "views"},
    "mcp": {"tasks", "views", "api"},
    "text": {"judge", "answers", "agent", "reader", "ingest", "models", "views", "api", "tasks"},
    "encode": {"ingest", "retrieval", "judge", "answers", "agent", "models", "views", "api", "tasks"},
    "agent": {"views", "api", "tasks"},
    "eval": {"views", "api"},
    "models": {"views", "api", "agent"},
    # The answer layer is pure: the text of sentences in, a short answer and its probability out.
    "answers": {"agent", "views", "api", "tasks", "models", "ingest", "retrieval", "eval", "services"},
}


def layer_of(path: Path) -> str:
    return path.relative_to(import_graph.APP).parts[0].removesuffix(".py")


def violations() -> list[str]:
    out = []
    for path in sorted(import_graph.APP.rglob("*.py")):
        banned = FORBIDDEN.get(layer_of(path), set())
        for line, name in imported_modules(path):
            target = name.split(".")[1]
            if target in banned:
                out.append(f"{path.relative_to(import_graph.APP.parent)}:{line} imports {name}")
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
    monkeypatch.setattr(import_graph, "APP", tmp_path / "evidence")
    assert [name for _, name in imported_modules(fake)] == [expected]
    assert violations() == [f"evidence/{source}:1 imports {expected}"]


# Strategy code returns values and calls the run recorder: it never touches the ORM or a database cursor.
STRATEGY = [
    *(
        f"agent/{name}.py"
        for name in (
            "systems/registry", "systems/dual", "systems/baselines", "systems/background", "readers/papers",
            "readers/pairs", "readers/general", "core/heuristic", "readers/fanout", "readers/localization",
            "planning/llm", "core/answering", "core/context", "core/steps",
        )
    ),
    *(f"answers/{name}.py" for name in ("candidates", "layer", "nlp", "ranker_rows", "trees")),
    *(f"text/{name}.py" for name in ("question_plan", "question", "sentence_spans", "terms")),
]  # fmt: skip


DATABASE = ("evidence.models", "django.db")


def test_strategy_code_has_no_orm_import():
    touching = [
        f"{source}:{line} imports {name}"
        for source in STRATEGY
        for line, name in runtime_imports(import_graph.APP / source)
        if name.startswith(DATABASE)
    ]
    assert touching == []
