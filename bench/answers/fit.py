"""Fit the answer layer and report it: the ranker on cloze questions, the confidence on real questions.

Usage (after `cloze.py` and `manage.py evaluate papers` runs of dev, dev2 and own questions):

    .venv/bin/python bench/answers/fit.py --cloze artifacts/answers/cloze.jsonl \
        --real dev2=EVAL:../shared/data/realqa/dev2.json --real dev=EVAL:../shared/data/realqa/dev.json \
        --real own=EVAL:tests/data/own_questions.json [--save] [--held-out]

The ranker (boosted trees, settings fixed a priori) is fitted on cloze questions only; its in-fold figure is
5-fold cross-validation grouped by paper on the cloze set. The confidence (a logistic regression on the
ranker's output and the evidence) is fitted on the real questions of dev, dev2 part A and own questions,
cross-validated leave-one-paper-out; its threshold (below it the short answer is withheld) is chosen on those
out-of-fold predictions. dev2 part B is reported only with --held-out, and is never used for any choice.
Prints one JSON line last.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.common import django_setup  # noqa: E402

RANKER_PARAMS = {
    "objective": "binary", "learning_rate": 0.05, "num_leaves": 31, "min_child_samples": 20,
    "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "verbose": -1,
    "seed": 7, "num_threads": 2,
}  # fmt: skip
ROUNDS = 300
CONFIDENCE_C = 0.5
CALIBRATION_SETS = ("dev", "dev2A", "own")
MAX_CONFIDENT_WRONG = 0.10  # of answerable questions: wrong answers shown at P(right) >= 0.5
FOUND_C = 0.3
MAX_FALSE_ABSTAIN = 0.05  # of answerable questions answered "not found"


def candidate_rows(items: Sequence):
    """Return (X, y, question index per row, candidates) for the ranker over items that are not yes/no."""

    from evidence.answers.candidates import candidates
    from evidence.answers.nlp import parse
    from evidence.answers.ranker_rows import rows
    from evidence.text.question import analyse

    xs, ys, qs, cands = [], [], [], []
    for n, item in enumerate(items):
        question = analyse(item.question)
        if question.kind == "yes_no" or not item.sentences:
            continue
        docs = parse([s.text for s in item.sentences])
        found = [candidates(s.text, question, d) for s, d in zip(item.sentences, docs, strict=True)]
        x = rows(question, item.sentences, docs, found, item.context, embedder().embed)
        flat = [(i, c) for i, cs in enumerate(found) for c in cs]
        if not flat:
            continue
        xs.append(x)
        ys.extend(float(answers_it(c.text, item.answers, question.terms)) for _, c in flat)
        qs.extend([n] * len(flat))
        cands.extend(flat)
    x = np.vstack(xs) if xs else np.zeros((0, 0))
    return x, np.asarray(ys), np.asarray(qs), cands


def embedder():
    from evidence.encode.embedding import get_embedder

    return get_embedder()


def answers_it(text: str, answers: Sequence[str], question_terms: frozenset[str]) -> bool:
    """The training label: right under the strict rule, and holding a word of the answer the question does not say.

    The strict rule alone takes "stakeholders" for "20 stakeholders" (token F1 0.67); a ranker fitted on that would
    learn to echo the question.
    """
    from evidence.eval.metrics_papers import answer_correct
    from evidence.judge.features import terms

    if not answer_correct(text, answers, "", strict=True):
        return False
    said = set(terms(text)) - question_terms
    numbers = set(re.findall(r"\d+(?:[.,]\d+)*", text))
    return any(said & set(terms(a)) or numbers & set(re.findall(r"\d+(?:[.,]\d+)*", a)) for a in answers)


def cached_rows(items: Sequence, path: Path):
    """candidate_rows of the cloze file, cached under artifacts/answers by the file and the layer's source code."""
    import hashlib

    digest = hashlib.sha256(path.read_bytes())
    for module in ("candidates", "features", "question", "nlp"):
        digest.update((ROOT / "evidence" / "answers" / f"{module}.py").read_bytes())
    cache = ROOT / "artifacts" / "answers" / f"rows-{digest.hexdigest()[:16]}-{len(items)}.npz"
    if cache.exists():
        data = np.load(cache)
        return data["x"], data["y"], data["q"]
    x, y, q, _ = candidate_rows(items)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, x=x, y=y, q=q)
    return x, y, q


def fit_trees(x: np.ndarray, y: np.ndarray):
    import lightgbm

    return lightgbm.train(RANKER_PARAMS, lightgbm.Dataset(x, y), num_boost_round=ROUNDS)


def top1(p: np.ndarray, y: np.ndarray, q: np.ndarray) -> dict[int, bool]:
    """Return per question whether its best-scored candidate is right."""
    best: dict[int, tuple[float, bool]] = {}
    for pi, yi, qi in zip(p, y, q, strict=True):
        if qi not in best or pi > best[qi][0]:
            best[qi] = (pi, bool(yi))
    return {qi: ok for qi, (_, ok) in best.items()}


def cloze_cv(items, x, y, q, folds: int = 5) -> float:
    """Top-1 strict accuracy of the ranker on cloze questions, 5-fold grouped by paper."""
    groups = np.asarray([hash(items[i].group) % folds for i in q])
    p = np.zeros(len(y))
    for f in range(folds):
        test = groups == f
        model = fit_trees(x[~test], y[~test])
        p[test] = model.predict(x[test])
    right = top1(p, y, q)
    return sum(right.values()) / len({i for i in range(len(items)) if items[i].sentences})


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    pos = [s for s, right in zip(scores, labels, strict=True) if right]
    neg = [s for s, right in zip(scores, labels, strict=True) if not right]
    if not pos or not neg:
        return float("nan")
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cloze", type=Path, required=True)
    parser.add_argument("--real", action="append", default=[], help="NAME=EVALUATION_ID:QUESTIONS.json")
    parser.add_argument("--limit", type=int, default=None, help="use the first N cloze questions")
    parser.add_argument("--save", action="store_true", help="write the fitted files into evidence/answers/params")
    parser.add_argument("--held-out", action="store_true", help="also report dev2 part B (never used for choices)")
    parser.add_argument("--no-cv", action="store_true", help="skip the cloze cross-validation")
    parser.add_argument("--analyze", type=Path, default=None, help="write per-question diagnostics (no dev2 B)")
    args = parser.parse_args()
    django_setup()
    from bench.answers.data import load_cloze, load_real
    from bench.answers.evaluate import calibrate, evaluate_sets, fit_found, save_models
    from evidence.answers.ranker_rows import feature_names

    cloze = load_cloze(args.cloze, args.limit)
    real = []
    for spec in args.real:
        name, rest = spec.split("=", 1)
        evaluation, questions = rest.split(":", 1)
        real.extend(load_real(int(evaluation), Path(questions), name))
    x, y, q = cached_rows(cloze, args.cloze)
    report: dict[str, object] = {
        "cloze_questions": len(cloze),
        "cloze_rows": len(y),
        "cloze_oracle": round(len(set(q[y > 0])) / max(1, len(set(q))), 4),
    }
    if not args.no_cv:
        report["cloze_top1_cv"] = round(cloze_cv(cloze, x, y, q), 4)
    ranker = fit_trees(x, y)
    importance = sorted(zip(feature_names(), ranker.feature_importance("gain"), strict=True), key=lambda t: -t[1])[:15]
    report["top_features"] = [[n, round(float(g))] for n, g in importance]
    sets = {s for s in {i.source for i in real} if s != "dev2B" or args.held_out}
    evaluated = evaluate_sets(ranker, [i for i in real if i.source in sets])
    found = fit_found(evaluated, CALIBRATION_SETS, FOUND_C, MAX_FALSE_ABSTAIN)
    report["found_threshold"] = found.meta["threshold"]
    confidence, threshold, oof = calibrate(evaluated, CALIBRATION_SETS, CONFIDENCE_C, MAX_CONFIDENT_WRONG)
    report["threshold"] = threshold
    report["sets"] = oof
    if args.analyze:
        from bench.answers.evaluate import diagnostics

        args.analyze.write_text(diagnostics([r for r in evaluated if r.item.source != "dev2B"], ranker))
    if args.save:
        report["saved"] = save_models(ranker, confidence, threshold, found, report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
