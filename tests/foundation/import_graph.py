"""The app's import graph, read from its source (lazy imports included, typing-only ones left out), and the
rooms its modules sit in: what the architecture tests beside this module check."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "evidence"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every `evidence.*` module a file imports (relative imports resolved, typing-only ones left out), with lines."""
    return [(line, name) for line, name in runtime_imports(path) if name.startswith("evidence.")]


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


def face_map(init: Path) -> dict[str, str]:
    """A face's FACE map: name -> the module of its room that holds it (empty for a face that imports its names)."""
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FACE" for t in node.targets):
            return {k.value: v.value for k, v in zip(node.value.keys, node.value.values, strict=True)}  # type: ignore
    return {}


def module_graph() -> dict[str, set[str]]:
    """evidence module -> the evidence modules it imports, at load time or inside a function (a lazy import
    that closes a circle is still a circle, only a hidden one)."""
    modules = {
        ".".join(["evidence", *p.relative_to(APP).with_suffix("").parts]).removesuffix(".__init__"): p
        for p in APP.rglob("*.py")
        if "migrations" not in p.parts
    }
    through_faces = {package: face_map(path) for package, path in modules.items() if path.name == "__init__.py"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for _, imported in runtime_imports(path):
            face, _, attribute = imported.rpartition(".")
            if attribute in through_faces.get(face, {}):
                imported = f"{face}.{through_faces[face][attribute]}"  # a name a face loads from one of its modules
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


def found_in_app(check: Callable[[str], list[int]], allowed: set[str]) -> set[str]:
    """`path:line` of each line the check finds in the app's modules, but the allowed ones (paths in evidence/)."""
    return {
        f"{path.relative_to(APP.parent)}:{line}"
        for path in sorted(APP.rglob("*.py"))
        if "migrations" not in path.parts and path.relative_to(APP).as_posix() not in allowed
        for line in check(path.read_text())
    }


def room(module: str) -> str:
    """A module's package under evidence/ (agent's rooms each their own), or the top-level module itself."""
    parts = module.split(".")
    in_a_room = parts[1] == "agent" and len(parts) > 2 and (APP / "agent" / parts[2]).is_dir()
    return f"{parts[1]}.{parts[2]}" if in_a_room else parts[1]


def app_graph() -> dict[str, set[str]]:
    """The module graph of evidence/ alone (lazy imports included), without the imports of other packages."""
    return {m: {t for t in targets if t.startswith("evidence.")} for m, targets in module_graph().items()
            if m.startswith("evidence.")}  # fmt: skip


def app_modules() -> dict[str, Path]:
    return {
        ".".join(["evidence", *p.relative_to(APP).with_suffix("").parts]).removesuffix(".__init__"): p
        for p in APP.rglob("*.py")
        if "migrations" not in p.parts
    }


def face_names(init: Path) -> set[str]:
    """The names a face offers: what its `__init__` imports, defines or assigns, the keys of its FACE map and the
    modules its MODULES names."""
    names: set[str] = set()
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "FACE" and isinstance(node.value, ast.Dict):
                        names |= {key.value for key in node.value.keys if isinstance(key, ast.Constant)}
                    if target.id == "MODULES" and isinstance(node.value, ast.Tuple):
                        names |= {item.value for item in node.value.elts if isinstance(item, ast.Constant)}
    return names


def import_statements(path: Path) -> list[tuple[str, str]]:
    """(the module named after `from`, the name imported) of each import a module runs; (module, "") for `import`."""
    tree = ast.parse(path.read_text())
    package = ["evidence", *path.relative_to(APP).parts[:-1]]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            found += [(".".join([*base, *([node.module] if node.module else [])]), a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return found
