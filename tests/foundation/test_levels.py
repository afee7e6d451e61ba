"""Which package may import which: the arrows docs/architecture.md names, checked on every module."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "evidence"
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


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every `evidence.*` module a file imports (relative imports resolved, typing-only ones left out), with lines."""
    return [(line, name) for line, name in runtime_imports(path) if name.startswith("evidence.")]


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


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """The imports a module runs (function-level ones included), leaving out `if TYPE_CHECKING:` blocks."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for child in ast.walk(node)
    }
    package = ["evidence", *path.relative_to(APP).parts[:-1]]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_strategy_code_has_no_orm_import():
    touching = [
        f"{source}:{line} imports {name}"
        for source in STRATEGY
        for line, name in runtime_imports(APP / source)
        if name.startswith(DATABASE)
    ]
    assert touching == []


def module_graph() -> dict[str, set[str]]:
    """evidence module -> the evidence modules it imports, at load time or inside a function (a lazy import
    that closes a circle is still a circle, only a hidden one)."""
    modules = {
        ".".join(["evidence", *p.relative_to(APP).with_suffix("").parts]).removesuffix(".__init__"): p
        for p in APP.rglob("*.py")
        if "migrations" not in p.parts
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for _, imported in runtime_imports(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]  # evidence.services.runs.claim_run -> evidence.services.runs
            targets.add(imported)
        graph[name] = {t for t in targets if t and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other_in_a_circle():
    assert cycles(module_graph()) == []


def test_the_circle_check_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# ------------------------------------------------------------------ one writer of a run's life

LIFE = {"status", "heartbeat_at"}  # the fields only evidence/run_state/lifecycle.py writes


def life_writes(source: str) -> list[int]:
    """Lines of a module that write a run's status or heartbeat: Run.objects...update(status=...), a save of a
    run with those update_fields, or raw SQL that sets them."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value)
            keywords = {k.arg for k in node.keywords}
            if node.func.attr == "update" and receiver.startswith("Run.objects") and keywords & LIFE:
                found.append(node.lineno)
            fields = next((k.value for k in node.keywords if k.arg == "update_fields"), None)
            if node.func.attr == "save" and receiver.split(".")[-1] == "run" and fields is not None:
                names = {e.value for e in getattr(fields, "elts", []) if isinstance(e, ast.Constant)}
                if names & LIFE:
                    found.append(node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.split()).lower()
            if "update evidence_run set" in sql and ("heartbeat_at" in sql or "status =" in sql):
                found.append(node.lineno)
    return sorted(set(found))


def found_in_app(check: Callable[[str], list[int]], allowed: set[str]) -> set[str]:
    """`path:line` of each line the check finds in the app's modules, but the allowed ones (paths in evidence/)."""
    return {
        f"{path.relative_to(APP.parent)}:{line}"
        for path in sorted(APP.rglob("*.py"))
        if "migrations" not in path.parts and path.relative_to(APP).as_posix() not in allowed
        for line in check(path.read_text())
    }


def test_only_the_run_lifecycle_writes_a_runs_status_or_heartbeat():
    assert found_in_app(life_writes, {"run_state/lifecycle.py"}) == set()
    assert life_writes((APP / "run_state" / "lifecycle.py").read_text()), "the check sees the lifecycle's writes"


@pytest.mark.parametrize(
    "source",
    [
        "Run.objects.filter(pk=1).update(status='failed')",
        "Run.objects.filter(pk=1, status='running').update(heartbeat_at=now)",
        "run.save(update_fields=['status', 'answer'])",
        "cursor.execute('UPDATE evidence_run SET heartbeat_at = now() WHERE id = %s', [1])",
    ],
)
def test_the_life_check_sees_each_way_of_writing(source):
    assert life_writes(source) == [1]
    assert life_writes("IngestFile.objects.filter(pk=1).update(status='failed')") == []


# ------------------------------------------------------------------ one writer of a run's recall funnel

# The recorder derives the funnel (its Trajectory) from what it records; the lifecycle stores what the recorder
# hands its heartbeat.
FUNNEL_WRITERS = {"agent/core/recorder.py", "run_state/lifecycle.py"}


def funnel_writes(source: str) -> list[int]:
    """Lines that write a run's recall funnel: `X.trajectory.add(...)`, a `reached(...)` call, an assignment to
    `X.trajectory`, an `update(trajectory=...)`, or raw SQL that sets the trajectory column."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value).split(".")[-1]
            if (node.func.attr == "add" and receiver.endswith("trajectory")) or node.func.attr == "reached":
                found.append(node.lineno)
            if node.func.attr == "update" and any(k.arg == "trajectory" for k in node.keywords):
                found.append(node.lineno)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "trajectory" for t in targets):
                found.append(node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.split()).lower()
            if "update evidence_run set" in sql and "trajectory =" in sql:
                found.append(node.lineno)
    return sorted(set(found))


def test_only_the_recorder_writes_a_runs_funnel():
    assert found_in_app(funnel_writes, FUNNEL_WRITERS) == set()
    assert funnel_writes((APP / "agent" / "core" / "recorder.py").read_text()), "the check sees the recorder's writes"


@pytest.mark.parametrize(
    "source",
    [
        "ctx.reached('inspected', ['a'])",
        "self.trajectory.add('opened', ['a'])",
        "run.trajectory = {'cited': ['a']}",
        "Run.objects.filter(pk=1).update(trajectory={})",
        "cursor.execute('UPDATE evidence_run SET trajectory = %s WHERE id = %s', ['{}', 1])",
    ],
)
def test_the_funnel_check_sees_each_way_of_writing(source):
    assert funnel_writes(source) == [1]
    reads = "seen.add('a')\nx = run.trajectory.get('cited')\nn = Trajectory.from_dict(run.trajectory).counts()"
    assert funnel_writes(reads) == []


# ------------------------------------------------------------------ every test can fail

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


# ------------------------------------------------------------------ layers: no arrow points up

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


def room(module: str) -> str:
    """A module's package under evidence/ (agent's rooms each their own), or the top-level module itself."""
    parts = module.split(".")
    in_a_room = parts[1] == "agent" and len(parts) > 2 and (APP / "agent" / parts[2]).is_dir()
    return f"{parts[1]}.{parts[2]}" if in_a_room else parts[1]


def app_graph() -> dict[str, set[str]]:
    """The module graph of evidence/ alone (lazy imports included), without the imports of other packages."""
    return {m: {t for t in targets if t.startswith("evidence.")} for m, targets in module_graph().items()
            if m.startswith("evidence.")}  # fmt: skip


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
    monkeypatch.setattr(f"{__name__}.APP", copy)


def test_a_planted_lazy_upward_import_fails_the_layer_check(tmp_path, monkeypatch):
    source = "def cancel(run_id):\n    from ..services.runs import cancel_run\n    return cancel_run(run_id)\n"
    planted(tmp_path, monkeypatch, "run_state/planted.py", source)
    assert upward_arrows(app_graph()) == ["evidence.run_state.planted -> evidence.services.runs"]
    assert two_way_ties(app_graph()) == [("run_state", "services")]


def test_a_planted_upward_import_in_agent_fails_the_layer_check(tmp_path, monkeypatch):
    planted(tmp_path, monkeypatch, "agent/core/planted.py", "from ...services import runs\n")
    assert upward_arrows(app_graph()) == ["evidence.agent.core.planted -> evidence.services.runs"]
    assert two_way_ties(app_graph(), by=package) == [("agent", "services")]


# ------------------------------------------------------------------ faces: rooms are entered by the front door

# agent's rooms and the event streams: a room's face is its `__init__`, which re-exports the names other rooms use
FACED_ROOMS = (*(f"agent.{name}" for name in ("llm", "core", "readers", "planning", "systems")), "streams")


def face_bypasses(graph: dict[str, set[str]]) -> list[str]:
    """Imports into a faced room from outside that room that name one of its modules instead of its face."""
    found = []
    for source, targets in graph.items():
        for target in targets:
            if "." not in target or room(target) not in FACED_ROOMS or target == f"evidence.{room(target)}":
                continue
            if room(source) != room(target):
                found.append(f"{source} -> {target}")
    return sorted(found)


def test_faced_rooms_are_entered_through_their_faces():
    graph = {m: targets for m, targets in module_graph().items() if m.startswith("evidence.")}
    assert face_bypasses(graph) == []


def test_the_face_check_sees_a_module_reached_past_its_face():
    graph = {
        "evidence.agent.readers.general": {"evidence.agent.core.context", "evidence.agent.core"},
        "evidence.agent.core.steps": {"evidence.agent.core.context"},
        "evidence.views.stream": {"evidence.streams.broadcast", "evidence.streams"},
        "evidence.streams.sse": {"evidence.streams.broadcast"},
    }
    assert face_bypasses(graph) == [
        "evidence.agent.readers.general -> evidence.agent.core.context",
        "evidence.views.stream -> evidence.streams.broadcast",
    ]


# ------------------------------------------------------------------ the stored answer is read through its type

ANSWER_READERS_ALLOWED = {"run_state/stored_answer.py"}


def raw_answer_reads(source: str) -> list[int]:
    """Lines that read a run's stored answer as a raw dict: `X.answer[...]`, `X.answer.get(...)` or
    `X.answer or {}`, where StoredAnswer.of(run) says what it holds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        target = None
        if isinstance(node, ast.Subscript):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            target = node.func.value
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and isinstance(node.values[-1], ast.Dict):
            target = node.values[0]  # `run.answer or {}` (a string field's `t.answer or "..."` is no stored answer)
        if isinstance(target, ast.Attribute) and target.attr == "answer":
            found.append(node.lineno)
    return sorted(set(found))


def test_a_runs_answer_is_read_only_through_stored_answer():
    assert found_in_app(raw_answer_reads, ANSWER_READERS_ALLOWED) == set()


@pytest.mark.parametrize(
    "source",
    ["x = run.answer['exact_answer']", "x = run.answer.get('confidence')", "x = parent.answer or {}"],
)
def test_the_answer_check_sees_each_raw_read(source):
    assert raw_answer_reads(source) == [1]
    assert raw_answer_reads("x = StoredAnswer.of(run).exact_answer\nrun.answer = answer.as_dict()") == []
