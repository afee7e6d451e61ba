"""The reading walk of one dual run: the project's functions the run executes, each at its first call, in order.

    .venv/bin/python bench/context_walk.py [--collection NAME --owner USER] [--question "..."] [--system dual]

A newcomer following a run reads each function once, where it first runs. A room is a module (a file); the walk
moves to another room at each first call into a function of another file; a return is a move into a room visited
before that is not one of the rooms the call is made from (its callers on the stack: going back to finish reading a
caller is no return; coming back to a room one had left, to read another of its functions, is).
The run is created and executed in this process as `manage.py ask` runs one (runs.create_run, runs.run_here),
over a collection of the 13 real papers of ../shared/data/papers ingested for it (kept and reused) unless one is
named; it runs once untraced first (imports, caches). Every thread is traced (System 1 reads in threads). One JSON
line per scope (`evidence/agent`, `evidence`) and kind of room (`modules`: files; `packages`: folders such as
agent/loop/ or agent/readers/, a module alone in evidence/ or evidence/agent/ being its own room).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

PACKAGE = str(ROOT / "evidence") + os.sep
PAPERS = ROOT.parent / "shared" / "data" / "papers"
OWN_COLLECTION = ("context-walk", "bench-context-walk")  # (collection, owner) made from PAPERS when none is named


def module_of(code) -> str:
    return code.co_filename[len(str(ROOT)) + 1 :]


def first_calls(action) -> list[tuple[str, str, frozenset[str]]]:
    """Run `action` under a profiler; return (module, function, modules of its project callers on the stack) of
    each project function at its first call."""
    seen: set[object] = set()
    order: list[tuple[str, str, frozenset[str]]] = []
    lock = threading.Lock()

    def profile(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if code in seen or not code.co_filename.startswith(PACKAGE):
            return
        callers, caller = set(), frame.f_back
        while caller is not None:
            if caller.f_code.co_filename.startswith(PACKAGE):
                callers.add(module_of(caller.f_code))
            caller = caller.f_back
        with lock:
            if code not in seen:
                seen.add(code)
                order.append((module_of(code), code.co_qualname, frozenset(callers)))

    threading.setprofile_all_threads(profile)
    try:
        action()
    finally:
        threading.setprofile_all_threads(None)
    return order


def package_of(module: str) -> str:
    """A module's package (its folder); a module standing alone in evidence/ or evidence/agent/ is its own."""
    folder = os.path.dirname(module)
    return module if folder in ("evidence", "evidence/agent") else folder


def walk(calls: list[tuple[str, str, frozenset[str]]], prefix: str, rooms_are: str = "modules") -> dict[str, object]:
    """Rooms, moves and returns of the walk through the modules under `prefix`; rooms are modules or packages."""
    room = package_of if rooms_are == "packages" else (lambda module: module)
    path = [(room(module), {room(c) for c in callers}) for module, _, callers in calls if module.startswith(prefix)]
    rooms: set[str] = set()
    entries: Counter[str] = Counter()
    returned: Counter[str] = Counter()
    moves = 0
    previous: str | None = None
    for module, callers in path:
        if module == previous:
            continue
        moves += 1
        entries[module] += 1
        if module in rooms and module not in callers:
            returned[module] += 1
        rooms.add(module)
        previous = module
    return {
        "scope": prefix.rstrip("/"),
        "rooms_are": rooms_are,
        "functions": len(path),
        "rooms": len(rooms),
        "moves": moves,
        "returns": sum(returned.values()),
        "most_returned_to": returned.most_common(5),
        "most_entered": entries.most_common(5),
    }


def papers_collection(name: str, owner: str):  # -> Collection
    """The named collection; the bench's own is made from the 13 real papers the first time."""
    from django.contrib.auth import get_user_model

    from evidence.ingest import jobs
    from evidence.models import Collection

    found = Collection.objects.filter(name=name, owner__username=owner).first()
    if found is not None or (name, owner) != OWN_COLLECTION:
        if found is None:
            sys.exit(f"no collection {name!r} owned by {owner!r}")
        return found
    user, _ = get_user_model().objects.get_or_create(username=owner)
    collection = Collection.objects.create(owner=user, name=name)
    files = [path for path in sorted(PAPERS.rglob("*")) if path.is_file() and path.suffix in {".pdf", ".nxml"}]
    files += sorted((PAPERS / "s2orc_json").glob("*.json"))
    jobs.process_all(jobs.create_job(collection, [(path.name, path.read_bytes()) for path in files]))
    return collection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", default=None, help="an existing collection (default: the 13 papers)")
    parser.add_argument("--owner", default=None, help="its owner's username")
    parser.add_argument("--question", default="What dataset was used to evaluate the system?")
    parser.add_argument("--system", default="dual")
    args = parser.parse_args()
    import django

    django.setup()
    from evidence.services import runs

    collection = papers_collection(args.collection or OWN_COLLECTION[0], args.owner or OWN_COLLECTION[1])
    run, _ = runs.create_run(collection.owner, collection, args.question, system=args.system, quota=False)
    runs.run_here(run)  # once untraced: imports and caches, so the walk is the run's own code path
    run, _ = runs.create_run(collection.owner, collection, args.question, system=args.system, quota=False)
    calls = first_calls(lambda: runs.run_here(run))
    run.refresh_from_db()
    for prefix in ("evidence/agent/", "evidence/"):
        for rooms_are in ("modules", "packages"):
            print(json.dumps({"run": run.pk, "status": run.status, **walk(calls, prefix, rooms_are)}), flush=True)


if __name__ == "__main__":
    main()
