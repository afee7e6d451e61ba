"""Faces: every room is entered by its front door (its `__init__`), never through one of its modules."""

from __future__ import annotations

from tests.foundation.import_graph import APP, app_modules, face_map, face_names, import_statements, room

# Every package room is entered through its face (its `__init__`): another room imports the names the face offers
# (what it imports or defines, or the keys of its FACE map, loaded when first asked for) from the package itself,
# never from one of the room's modules. answers/ and reader/ are still entered file by file (their faces are not
# written yet), so they, and judge/paper.py beside them, are left out of the check until they are.
UNFACED_ROOMS = {"answers", "reader"}


UNCHECKED_SOURCES = {"evidence.judge.paper"}


def face_bypasses(
    imports: dict[str, list[tuple[str, str]]], faces: dict[str, set[str]], modules: set[str]
) -> list[str]:
    """Imports into a faced room (a key of `faces`, with the names its face offers) from outside it that name one
    of its modules, or a name its face does not offer."""
    found = []
    for source, statements in imports.items():
        for module, name in statements:
            if not module.startswith("evidence."):
                continue
            target = f"{module}.{name}" if f"{module}.{name}" in modules else module
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            faced, front = room(target), f"evidence.{room(target)}"
            if faced not in faces or faced == room(source):
                continue
            if target == front and module != front:
                continue  # `from evidence.agent import readers`: the room's face itself
            if module == front and name in faces[faced]:
                continue
            found.append(f"{source} -> {module}{'.' + name if name else ''}")
    return sorted(found)


def test_every_room_is_entered_through_its_face():
    modules = app_modules()
    rooms = {room(m) for m, path in modules.items() if "." in m and path.name == "__init__.py"} - UNFACED_ROOMS
    faces = {r: face_names(APP / r.replace(".", "/") / "__init__.py") for r in rooms if f"evidence.{r}" in modules}
    imports = {
        m: import_statements(path)
        for m, path in modules.items()
        if "." in m and room(m) not in UNFACED_ROOMS and m not in UNCHECKED_SOURCES
    }
    assert face_bypasses(imports, faces, set(modules)) == []
    assert {"retrieval", "judge", "text", "eval", "ingest", "encode", "services", "agent.core"} <= set(faces)


def test_the_face_check_sees_a_module_reached_past_its_face():
    modules = {
        *("evidence.agent.core", "evidence.agent.core.context", "evidence.agent.readers", "evidence.views.stream"),
        *("evidence.agent.readers.general", "evidence.retrieval", "evidence.retrieval.types"),
        "evidence.retrieval.piserini",
    }
    faces = {"agent.core": {"RunContext"}, "agent.readers": set(), "retrieval": {"Hit", "piserini"}}
    imports = {
        "evidence.agent.readers.general": [
            ("evidence.agent.core.context", "RunContext"),  # past the face
            ("evidence.agent.core", "RunContext"),
            ("evidence.retrieval", "piserini"),  # a module the face names
            ("evidence.retrieval", "types"),  # a module the face does not name
        ],
        "evidence.views.stream": [
            ("evidence.retrieval", "Hit"),
            ("evidence.agent", "readers"),  # a room's face by its package
            ("evidence.retrieval.types", ""),  # `import evidence.retrieval.types`
        ],
        "evidence.agent.core.steps": [("evidence.agent.core.context", "RunContext")],  # inside the room
    }
    assert face_bypasses(imports, faces, modules) == [
        "evidence.agent.readers.general -> evidence.agent.core.context.RunContext",
        "evidence.agent.readers.general -> evidence.retrieval.types",
        "evidence.views.stream -> evidence.retrieval.types",
    ]


def test_no_name_a_face_loads_is_also_one_of_its_rooms_modules():
    # Once a room's module is imported, Python sets it as the package's attribute: a FACE name that is also a
    # module's name would then be that module, not the name.
    clashes = [
        f"{init.parent.name}: {name}"
        for init in sorted(APP.rglob("__init__.py"))
        for name in face_map(init)
        if (init.parent / f"{name}.py").exists() or (init.parent / name / "__init__.py").exists()
    ]
    assert clashes == []
