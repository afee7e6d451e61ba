"""Warm question latency before/after a change to how units are read, side by side in one process.

    .venv/bin/python bench/question_bench.py --collection papers [--before-commit REV] [--questions 8] [--rounds 2]

Asks realqa dev questions (the 13 real papers) with the `dual` system, each once to warm up, then per round each
question with the units reader of REV (evidence/agent/units.py as it was there) and the embedder's vector cache
off, and with today's reader and the cache on, in turn. Reports
per variant the p50/mean seconds per question and the share spent inside the units readers. One JSON line per
variant, then one with both.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
READERS = ("load_units", "load_units_by_ref", "load_document_units")


def units_module_at(rev: str):
    """Import evidence/agent/units.py as it was at rev, as a sibling module (its relative imports resolve)."""
    source = subprocess.run(["git", "show", f"{rev}:evidence/agent/units.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "units_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("evidence.agent._units_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Readers:
    """Swap the units readers wherever the agent imported them, timing every call."""

    def __init__(self, variants: dict[str, object]) -> None:
        from evidence.agent.core import units

        self.originals = {v: {name: getattr(m, name) for name in READERS} for v, m in variants.items()}
        self.skip = {id(m) for m in variants.values()}
        self.current = {name: getattr(units, name) for name in READERS}
        self.spent = 0.0

    def use(self, variant: str) -> None:
        from evidence.encode.embedding import Embedder, get_embedder

        # before: no vector cache in the embedder (it had none); after: the class default
        get_embedder().cache_entries = 0 if variant == "before" else Embedder.cache_entries
        for name in READERS:
            timed = self._timed(self.originals[variant][name])
            for mod in list(sys.modules.values()):
                named = getattr(mod, "__name__", None) or ""
                if id(mod) in self.skip or not named.startswith("evidence."):
                    continue
                if getattr(mod, "__dict__", {}).get(name) is self.current[name]:
                    setattr(mod, name, timed)
            self.current[name] = timed

    def _timed(self, fn):
        def call(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - t

        return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", default="papers")
    parser.add_argument("--before-commit", default="4e0ef1b", help="the revision whose units reader is 'before'")
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--system", default="dual")
    args = parser.parse_args()

    import django

    django.setup()
    from evidence.agent import research as loop  # noqa: F401  (imports the strategies, so their reader names exist)
    from evidence.agent.core import units as units_after
    from evidence.models import Collection
    from evidence.run_state import user_config
    from evidence.services import runs

    collection = Collection.objects.filter(name=args.collection).order_by("pk").first()
    if collection is None:
        sys.exit(f"no collection {args.collection!r}: manage.py ingest the 13 papers into it first")
    questions = json.loads((ROOT.parent / "shared" / "data" / "realqa" / "dev.json").read_text())[: args.questions]
    readers = Readers({"before": units_module_at(args.before_commit), "after": units_after})

    def ask(question: str) -> tuple[float, float, str]:
        run, _ = runs.create_run(collection.owner, collection, question, system=args.system,
                                 config=user_config("hybrid", None), quota=False)  # fmt: skip
        readers.spent = 0.0
        t = time.perf_counter()
        run = runs.run_here(run)
        return time.perf_counter() - t, readers.spent, json.dumps(run.answer, sort_keys=True)

    for q in questions:  # warm: model, index, heads, vectors made on first read
        readers.use("after")
        ask(q["question"])
    results: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    same_answers = True
    for _ in range(args.rounds):
        for q in questions:
            answers = {}
            for variant in ("before", "after"):
                readers.use(variant)
                seconds, reading, answers[variant] = ask(q["question"])
                results[variant].append((seconds, reading))
            same_answers &= answers["before"] == answers["after"]
    row = {"case": "warm_question", "system": args.system, "questions": len(questions), "rounds": args.rounds,
           "before_commit": args.before_commit, "same_answers": same_answers}  # fmt: skip
    for variant, rows in results.items():
        seconds = [s for s, _ in rows]
        reading = [r for _, r in rows]
        row[f"{variant}_p50_s"] = round(statistics.median(seconds), 3)
        row[f"{variant}_mean_s"] = round(statistics.mean(seconds), 3)
        row[f"{variant}_units_read_mean_s"] = round(statistics.mean(reading), 3)
        row[f"{variant}_units_read_share"] = round(sum(reading) / sum(seconds), 3)
    row["load_avg_1m"] = round(os.getloadavg()[0], 2)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
