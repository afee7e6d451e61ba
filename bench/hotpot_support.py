"""HotpotQA supporting facts of the pair reader, question by question: which pair, which sentences, why wrong.

    .venv/bin/python bench/hotpot_support.py dump artifacts/hotpot_units.pkl   # ~2 minutes: runs `dual` once
    .venv/bin/python bench/hotpot_support.py score artifacts/hotpot_units.pkl [--rows] [--without links,...]
    .venv/bin/python bench/hotpot_support.py ablate artifacts/hotpot_units.pkl

`dump` runs the product path (`evaluate hotpotqa --system dual` in process, the reader model left out: it does
not choose the supporting sentences) and keeps what the pair reader handed `multihop_support`: the question, its
candidate paragraphs as the run loaded them (retrieval scores, ranks, stored vectors) and the heads fitted
without the question's fold. `score` asks the judge again on those inputs with the code as it stands, so a
change to the sentence selection is measured in seconds; the cited set is the one `compose_extractive` keeps
(the best 6 by probability). It reports sp precision, recall and F1, the pair accuracy, and the errors split
into a wrong paragraph pair and, inside the right pair, sentences missed (recall) or extra (precision).
The figure `manage.py evaluate hotpotqa --system dual` reports is the one to quote; this one should match it
on the questions the pair reader takes (the others go through the search loop and are not in the dump).

`--without` switches reading rules of judge/multihop.py off (links, comparison, senses); `ablate` scores every
subset of them on all questions and on two halves (even and odd positions in the file): the rules fit no
number, but they were written after reading these questions' errors, so each half says whether a rule
helps on questions apart from the others.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.answers.common import DATA, django_setup

HOTPOT = DATA / "hotpotqa" / "hotpot-dev-distractor-30.json"
CITED = 6  # compose_extractive's `evidence`: the most spans an answer cites
RULES = ("links", "comparison", "senses")


def dump(path: Path, data: Path = HOTPOT) -> None:
    """Run dual on every question and pickle each multihop_support call's inputs."""
    import tempfile

    from django.contrib.auth import get_user_model

    from evidence.agent.readers import pairs
    from evidence.eval.benchmarks import HotpotQA
    from evidence.eval.settings import EvaluationSettings
    from evidence.judge.local import LocalJudge
    from evidence.services.evaluation_runner import evaluate

    calls: list[dict] = []
    original = LocalJudge.multihop_support

    def recording(self, goal, units, goal_vector=None):
        calls.append({"goal": goal, "units": list(units), "heads": dict(self.head_names)})
        return original(self, goal, units, goal_vector)

    LocalJudge.multihop_support = recording  # type: ignore[method-assign]
    pairs.reader_of = lambda ctx: None  # type: ignore[assignment]  # the answer only; the sentences are System 1's
    owner = get_user_model().objects.filter(username="evaluator").first()
    owner = owner or get_user_model().objects.create_user("evaluator", "", None)
    with tempfile.TemporaryDirectory() as out:
        config = EvaluationSettings(run={"searcher": "hybrid"}, quiet_events=True)
        evaluate(HotpotQA(data), owner, "dual", config, out_dir=Path(out), fresh=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(calls))
    print(json.dumps({"calls": len(calls), "out": str(path)}))


def predicted_facts(judge, goal: str, units, example: dict) -> set[tuple[str, int]]:
    """Return the (title, sent_id) pairs an answer would cite from the judge's chosen sentences."""
    from evidence.eval.benchmarks import _raw_sentence_index

    chosen = judge.multihop_support(goal, units)
    picks = sorted(
        ((p, units[u].docid, b) for u, bs in chosen.items() for b, p in bs), key=lambda r: (-r[0], r[1], r[2])
    )[:CITED]
    by_docid = {u.docid: u for u in units}
    out = set()
    for _, docid, b in picks:
        unit = by_docid[docid]
        block = unit.blocks[b]
        out.add((unit.title, _raw_sentence_index(example, unit.title, block.position)))
    return out


def question_row(example: dict, facts: set[tuple[str, int]]) -> dict:
    """Score one question's facts and say what kind of error it is."""
    from evidence.eval.metrics_hotpot import gold_supporting_facts, supporting_fact_scores

    gold = set(gold_supporting_facts(example))
    scores = supporting_fact_scores(facts, gold)
    gold_titles, titles = {t for t, _ in gold}, {t for t, _ in facts}
    right_pair = gold_titles == titles
    return {
        "type": example["type"],
        "right_pair": right_pair,
        "kind": "right pair" if right_pair else "wrong pair",
        "missed_in_pair": len([f for f in gold - facts if f[0] in titles]),
        "extra_in_pair": len([f for f in facts - gold if f[0] in gold_titles]),
        **{k: round(v, 4) for k, v in scores.items()},
        "predicted": sorted(facts),
        "gold": sorted(gold),
    }


def summary(rows: list[dict]) -> dict:
    """Average the rows and split them by error kind."""
    n = len(rows)
    out = {"questions": n, **{k: round(sum(r[k] for r in rows) / n, 4) for k in ("f1", "precision", "recall", "em")}}
    out["pair_accuracy"] = round(sum(r["right_pair"] for r in rows) / n, 4)
    for kind in ("right pair", "wrong pair"):
        part = [r for r in rows if r["kind"] == kind]
        if part:
            out[kind] = {
                "n": len(part),
                **{k: round(sum(r[k] for r in part) / len(part), 4) for k in ("f1", "precision", "recall")},
                "missed": sum(r["missed_in_pair"] for r in part),
                "extra": sum(r["extra_in_pair"] for r in part),
            }
    return out


def without_rules(off: set[str]) -> None:
    """Switch reading rules off in the local judge (this process only)."""
    from evidence.judge import local, multihop

    def pair_features(*args, **kwargs):
        pairs, static = multihop.pair_features(*args, **kwargs)
        return multihop.Pairs(
            pairs,
            {} if "links" in off else pairs.links,
            () if "comparison" in off else pairs.coordinated,
            () if "senses" in off else pairs.shadowed,
        ), static

    local.pair_features = pair_features  # type: ignore[assignment]


def question_rows(path: Path, data: Path = HOTPOT) -> list[dict]:
    """Ask the judge again on the dumped inputs; return one scored row per question, in the file's order."""
    from evidence.judge.local import LocalJudge

    calls = pickle.loads(path.read_bytes())
    examples = json.loads(data.read_text(encoding="utf-8"))
    position = {e["question"].strip(): i for i, e in enumerate(examples)}
    judges: dict[tuple, LocalJudge] = {}
    out = []
    for call in calls:
        index = position[call["goal"].strip()]
        key = tuple(sorted(call["heads"].items()))
        judge = judges.setdefault(key, LocalJudge(heads=call["heads"]))
        facts = predicted_facts(judge, call["goal"], call["units"], examples[index])
        out.append({"index": index, **question_row(examples[index], facts)})
    return out


def score(path: Path, data: Path = HOTPOT, rows: bool = False, off: set[str] = frozenset()) -> dict:
    """Print a summary line of the judge's supporting facts (and one line per question)."""
    without_rules(set(off))
    out = question_rows(path, data)
    result = summary(out)
    if rows:
        for row in out:
            print(json.dumps(row))
    print(json.dumps(result))
    return result


def ablate(path: Path, data: Path = HOTPOT) -> None:
    """Print sp F1 with every subset of the reading rules: all questions, even positions, odd positions."""
    import itertools

    for k in range(len(RULES) + 1):
        for kept in itertools.combinations(RULES, k):
            without_rules(set(RULES) - set(kept))
            out = question_rows(path, data)
            halves = {
                name: summary([r for r in out if r["index"] % 2 == parity])["f1"]
                for name, parity in (("even", 0), ("odd", 1))
            }
            print(json.dumps({"rules": list(kept), "f1": summary(out)["f1"], **halves}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["dump", "score", "ablate"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--data", type=Path, default=HOTPOT)
    parser.add_argument("--rows", action="store_true")
    parser.add_argument("--without", default="", help=f"reading rules to switch off, comma-separated: {RULES}")
    args = parser.parse_args()
    django_setup()
    if args.action == "dump":
        dump(args.file, args.data)
    elif args.action == "ablate":
        ablate(args.file, args.data)
    else:
        score(args.file, args.data, args.rows, {r for r in args.without.split(",") if r})


if __name__ == "__main__":
    main()
