"""Evidence desk: the research app."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import import_module
from typing import Any


def face(package: str, names: dict[str, str], modules: Iterable[str] = ()) -> Callable[[str], Any]:
    """The `__getattr__` of a room's face: each name other rooms import from the room (`names`: name -> the module
    of the room that holds it; `modules`: modules of the room imported by name), loaded when first asked for, so
    entering a room by its front door loads no more of it than the name needs (a pure module stays importable
    without Django, a worker starts no slower than before)."""
    by_name = set(modules)

    def __getattr__(name: str) -> Any:
        if name in by_name:
            return import_module(f"{package}.{name}")
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{names[name]}"), name)

    return __getattr__
