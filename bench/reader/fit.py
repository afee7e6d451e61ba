"""Fit the reader's confidence: a logistic calibration of its token probabilities, out of fold by paper.

    .venv/bin/python bench/reader/fit.py --real dev2=EVAL:../shared/data/realqa/dev2.json \
        --real dev=EVAL:../shared/data/realqa/dev.json [--save]

Reads finished `manage.py evaluate papers --system dual` evaluations run with the reader model (each run stored the
reader's signals), labels each reply right or wrong with the strict scorer, and fits P(right) on dev and part A of
dev2 only (part B, every second paper by name, is never used for a choice: it is reported apart, held out). The
showing threshold is the lowest whose out-of-fold confident-wrong share (answerable questions given a wrong shown
answer, plus unanswerable ones given any) stays at most 4% (the target is 5%). `--save` writes
evidence/reader/params/reader_confidence.json and pins its SHA-256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

import django  # noqa: E402

django.setup()

from bench.answers.data import HELD_OUT, paper_of  # noqa: E402
from evidence.eval.metrics_papers import answer_correct  # noqa: E402
from evidence.models import Evaluation  # noqa: E402
from evidence.reader.confidence import CALIBRATION, PARAMS, with_derived  # noqa: E402

FEATURES = ["prior_logit", "polar", "conflict"]
VARIANTS = {  # compared out of fold on the fitting pool only (dev and dev2 part A)
    "prior": ["prior_logit"],
    "prior+agrees": ["prior_logit", "agrees"],
    "prior+agrees+evidence": ["prior_logit", "agrees", "evidence_p", "sentence_rank"],
    "prior+polar": ["prior_logit", "polar", "conflict"],
    "tokens": ["answer_mean_lp", "answer_min_lp", "p_not_stated", "agrees", "evidence_p", "sentence_rank"],
}
MAX_CONFIDENT_WRONG = 0.04


@dataclass
class Row:
    qid: str
    part: str  # dev, dev2A, dev2B
    paper: str
    answerable: bool
    candidate: str  # the reader's anchored reply ("" when it said not stated or did not anchor)
    right: bool
    x: dict[str, float]


def rows_of(evaluation_id: int, questions: Path, name: str) -> list[Row]:
    raw = json.loads(questions.read_text())
    gold = {str(q["qid"]): q for q in raw}
    papers = paper_of(raw)
    out = []
    for item in Evaluation.objects.get(pk=evaluation_id).items.select_related("run").order_by("pk"):
        q = gold.get(item.qid)
        if q is None or item.run is None:
            continue
        signals = (item.run.answer or {}).get("signals") or {}
        reading = signals.get("reading") or {}
        if reading.get("backend") != "model":
            continue
        paper = papers.get(item.qid, item.qid)
        part = name if name != "dev2" else ("dev2B" if paper in HELD_OUT else "dev2A")
        answerable = q["type"] != "unanswerable"
        anchored = reading.get("anchored", True) and not reading.get("not_stated")  # a yes/no stands on its own
        candidate = str(signals.get("candidate") or "") if anchored else ""
        right = answerable and bool(candidate) and answer_correct(candidate, q["answers"], q["type"], strict=True)
        x = dict(signals.get("answer") or {})
        x.setdefault("polar", float("polarity" in reading))  # runs from before the reader wrote it
        out.append(Row(item.qid, part, paper, answerable, candidate, right, with_derived(x) if x else {}))
    return out


def matrix(rows: list[Row]) -> np.ndarray:
    return np.asarray([[r.x.get(f, 0.0) for f in FEATURES] for r in rows], dtype=float)


def use(features: list[str]) -> None:
    FEATURES[:] = features


def fit(rows: list[Row]) -> tuple[np.ndarray, np.ndarray, object]:
    from sklearn.linear_model import LogisticRegression

    x = matrix(rows)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    y = np.asarray([r.right for r in rows], dtype=int)
    model = LogisticRegression(C=0.5, max_iter=1000).fit((x - mean) / scale, y)
    return mean, scale, model


def predict(fitted: tuple[np.ndarray, np.ndarray, object], rows: list[Row]) -> np.ndarray:
    mean, scale, model = fitted
    return model.predict_proba((matrix(rows) - mean) / scale)[:, 1]  # type: ignore[attr-defined]


def out_of_fold(rows: list[Row]) -> np.ndarray:
    p = np.zeros(len(rows))
    for paper in sorted({r.paper for r in rows}):
        test = [i for i, r in enumerate(rows) if r.paper == paper]
        train = [r for r in rows if r.paper != paper]
        if len({r.right for r in train}) < 2:
            p[test] = np.mean([r.right for r in train])
            continue
        p[test] = predict(fit(train), [rows[i] for i in test])
    return p


def figures(rows: list[Row], p: np.ndarray, threshold: float) -> dict[str, float]:
    """Shown right and confident wrong over all questions of the set, AUROC and ECE over the candidates."""
    from sklearn.metrics import roc_auc_score

    answerable = [r for r in rows if r.answerable]
    shown = [(r, q) for r, q in zip(rows, p, strict=True) if r.candidate and q >= threshold]
    unanswerable = [r for r in rows if not r.answerable]
    y = np.asarray([r.right for r in rows if r.candidate])
    s = np.asarray([q for r, q in zip(rows, p, strict=True) if r.candidate])
    bins = np.minimum((s * 10).astype(int), 9)
    ece = sum(abs(y[bins == b].mean() - s[bins == b].mean()) * (bins == b).sum() for b in set(bins)) / max(len(s), 1)
    return {
        "questions": len(rows),
        "candidate_right": round(sum(r.right for r in answerable) / max(len(answerable), 1), 3),
        "shown_right": round(sum(r.right for r, _ in shown) / max(len(answerable), 1), 3),
        "confident_wrong": round(sum(not r.right for r, _ in shown if r.answerable) / max(len(answerable), 1), 3),
        "unanswerable_given_an_answer": f"{sum(not r.answerable for r, _ in shown)} of {len(unanswerable)}",
        "shown": len(shown),
        "auroc": round(float(roc_auc_score(y, s)), 3) if len(set(y)) == 2 else None,
        "ece": round(float(ece), 3),
    }


def choose_threshold(rows: list[Row], p: np.ndarray) -> float:
    for threshold in np.arange(0.05, 0.99, 0.01):
        if figures(rows, p, float(threshold))["confident_wrong"] <= MAX_CONFIDENT_WRONG:
            return round(float(threshold), 2)
    return 0.99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="append", required=True, help="NAME=EVALUATION_ID:QUESTIONS.json")
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--variant", default="prior+polar", choices=list(VARIANTS))
    args = parser.parse_args()
    rows: list[Row] = []
    for spec in args.real:
        name, rest = spec.split("=", 1)
        evaluation, path = rest.split(":", 1)
        rows += rows_of(int(evaluation), Path(path), name)
    pool = [r for r in rows if r.part in ("dev", "dev2A") and r.candidate]
    for name, features in VARIANTS.items():
        use(features)
        p = out_of_fold(pool)
        print(name, figures(pool, p, 0.5)["auroc"], "OOF AUROC on the pool's candidates")
    use(VARIANTS[args.variant])
    held = [r for r in rows if r.part == "dev2B"]
    oof = out_of_fold(pool)
    threshold = choose_threshold([r for r in rows if r.part in ("dev", "dev2A")],
                                 np.asarray([oof[pool.index(r)] if r in pool else 0.0
                                             for r in rows if r.part in ("dev", "dev2A")]))  # fmt: skip
    fitted = fit(pool)
    report = {"threshold": threshold, "pool_candidates": len(pool)}
    for part in ("dev", "dev2A"):
        part_rows = [r for r in rows if r.part == part]
        part_p = np.asarray([oof[pool.index(r)] if r in pool else 0.0 for r in part_rows])
        report[f"{part} (in the fitting pool, out of fold)"] = figures(part_rows, part_p, threshold)
    if held:
        held_p = np.asarray([predict(fitted, [r])[0] if r.candidate else 0.0 for r in held])
        report["dev2B (held out)"] = figures(held, held_p, threshold)
    print(json.dumps(report, indent=1))
    if args.save:
        mean, scale, model = fitted
        data = {
            "features": FEATURES, "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": model.coef_[0].tolist(), "intercept": float(model.intercept_[0]), "threshold": threshold,  # type: ignore[attr-defined]
            "meta": {"fitted_on": "dev.json and dev2 part A (out of fold by paper for the threshold)",
                     "variant": args.variant,
                     "max_confident_wrong": MAX_CONFIDENT_WRONG, "report": report},
        }  # fmt: skip
        path = PARAMS / CALIBRATION
        path.write_text(json.dumps(data, indent=1) + "\n")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        (PARAMS / "SHA256SUMS").write_text(f"{digest}  {CALIBRATION}\n")
        print(f"saved {path} ({digest[:12]})")


if __name__ == "__main__":
    main()
