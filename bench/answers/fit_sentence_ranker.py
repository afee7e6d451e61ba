"""Fit the whole-paper reader's sentence ranker: which sentence of a paper states the answer.

    .venv/bin/python bench/answers/fit_sentence_ranker.py [--c 0.3] [--save]

Rows: every candidate sentence of each answerable question's gold paper (bench/answers/sentence_recall.py reads
them exactly as the product reads them), labelled 1 where it overlaps a gold quote. A logistic regression over
`judge/sentences.RANK_FEATURES` is fitted on dev.json, dev2 part A and dev4 only, validated leave-one-paper-out on
them (recall@k out of fold, also for a fit on dev.json and part A alone, the pool before dev4), then checked once on
dev2 part B and dev3, held out and never used for a choice. --save writes judge/params/sentence_rank.json (the reader
orders sentences by its logit).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.answers.common import django_setup

KS = (1, 3, 5, 6, 8, 10)
TRAIN = ("dev", "dev2A", "dev4")
BEFORE = ("dev", "dev2A")  # the pool before dev4: its fit is compared out of fold on the whole pool
HELD_OUT = ("dev2B", "dev3")


def recall(rows: list[dict], scores: list[np.ndarray]) -> dict[str, float]:
    """recall@k: the share of questions whose first gold sentence ranks within the best k by `scores`."""
    ranks = []
    for row, score in zip(rows, scores, strict=True):
        order = np.argsort(-score, kind="stable")
        hits = [r for r, i in enumerate(order) if row["labels"][i]]
        ranks.append(hits[0] if hits else None)
    return {f"recall@{k}": round(sum(r is not None and r < k for r in ranks) / max(len(ranks), 1), 3) for k in KS}


def fit(rows: list[dict], c: float):
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([np.asarray(r["features"], float) for r in rows])
    y = np.concatenate([np.asarray(r["labels"], float) for r in rows])
    mean, scale = x.mean(0), x.std(0) + 1e-9
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)
    return mean, scale, model


def logits(row: dict, mean, scale, model) -> np.ndarray:
    x = (np.asarray(row["features"], float) - mean) / scale
    return x @ model.coef_[0] + model.intercept_[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=0.3)
    parser.add_argument("--train", default=",".join(TRAIN), help="sets fitted on, comma-separated")
    parser.add_argument("--without", default="", help="features left out, comma-separated (to compare)")
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    django_setup()
    from bench.answers.sentence_recall import question_rows
    from evidence.judge.heads import Head
    from evidence.judge.sentences import RANK_FEATURES

    left_out = set(filter(None, args.without.split(",")))
    kept = [i for i, name in enumerate(RANK_FEATURES) if name not in left_out]
    features = [RANK_FEATURES[i] for i in kept]
    rows = [{**r, "features": [[v[i] for i in kept] for v in r["features"]]} for r in question_rows() if r["features"]]
    train_sets = tuple(args.train.split(","))
    train = [r for r in rows if r["set"] in train_sets]
    out_of_fold = [logits(row, *fit([r for r in train if r["paper"] != row["paper"]], args.c)) for row in train]
    before = [  # the fit without dev4, out of fold on the whole pool (dev4 is never in its training)
        logits(row, *fit([r for r in train if r["set"] in BEFORE and r["paper"] != row["paper"]], args.c))
        for row in train
    ]
    mean, scale, model = fit(train, args.c)
    report = {
        "c": args.c,
        "train_questions": len(train),
        "train_leave_one_paper_out": recall(train, out_of_fold),
        "by_set_leave_one_paper_out": {
            name: {"n": len(idx), **recall([train[i] for i in idx], [out_of_fold[i] for i in idx])}
            for name in train_sets
            if (idx := [i for i, r in enumerate(train) if r["set"] == name])
        },
        "without_dev4_on_the_pool": recall(train, before),
        **{
            f"{name}_held_out": recall(held, [logits(r, mean, scale, model) for r in held])
            for name in HELD_OUT
            if (held := [r for r in rows if r["set"] == name])
        },
        "coef": dict(zip(features, [round(float(v), 3) for v in model.coef_[0]], strict=True)),
    }
    print(json.dumps(report))
    if args.save:
        Head(
            name="sentence_rank",
            features=features,
            mean=[float(v) for v in mean],
            scale=[float(v) for v in scale],
            coef=[float(v) for v in model.coef_[0]],
            intercept=float(model.intercept_[0]),
            meta={
                "fitted_on": f"{', '.join(train_sets)} (gold sentences of answerable questions)",
                "n_questions": len(train),
                "c": args.c,
                "recall_leave_one_paper_out": report["train_leave_one_paper_out"],
            },
        ).save()


if __name__ == "__main__":
    main()
