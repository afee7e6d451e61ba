"""Fit the whole-paper reader's confidence heads (P(answer right), P(span is evidence)) from a papers evaluation.

Offline fitting code, outside the runtime package. Usage (a finished `manage.py evaluate papers` evaluation):

    DATABASE_URL=... python bench/fit_qa_confidence.py EVALUATION_ID QUESTIONS.json [--save]

Logistic regressions on the reader's signals (run.answer["signals"]), cross-validated leave-one-paper-out;
prints the out-of-fold ECE and reliability bins, and with --save writes judge/params/qa_answer.json and
qa_span.json fitted on every question (their meta carries the cross-validated figures).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 5) -> list[dict[str, float]]:
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        m = (p >= lo) & ((p < hi) | (b == bins - 1))
        if m.any():
            out.append(
                {
                    "bin": f"{lo:.1f}-{hi:.1f}",
                    "n": int(m.sum()),
                    "mean_p": round(float(p[m].mean()), 3),
                    "observed": round(float(y[m].mean()), 3),
                }
            )
    return out


def fit(x: np.ndarray, y: np.ndarray, groups: list[str], names: list[str], name: str, c: float = 0.5):
    from sklearn.linear_model import LogisticRegression

    from evidence.eval.metrics_papers import expected_calibration_error
    from evidence.judge.heads import Head

    mean, scale = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / scale
    oof = np.zeros(len(y))
    for g in sorted(set(groups)):
        test = np.array([gg == g for gg in groups])
        train_y = y[~test]
        if len(set(train_y)) < 2:
            oof[test] = train_y.mean() if len(train_y) else 0.5
            continue
        model = LogisticRegression(C=c).fit(z[~test], train_y)
        oof[test] = model.predict_proba(z[test])[:, 1]
    ece = expected_calibration_error(list(oof), list(y.astype(bool)))
    model = LogisticRegression(C=c).fit(z, y)
    head = Head(
        name=name,
        features=names,
        mean=list(map(float, mean)),
        scale=list(map(float, scale)),
        coef=list(map(float, model.coef_[0])),
        intercept=float(model.intercept_[0]),
        meta={
            "fitted_on": "papers evaluation signals",
            "n": len(y),
            "positives": int(y.sum()),
            "ece_leave_one_paper_out": round(float(ece), 4),
            "reliability_leave_one_paper_out": reliability(oof, y),
        },
    )
    return head, oof, ece


def main() -> None:
    import django

    django.setup()
    from evidence.agent.reader import ANSWER_FEATURES, ANSWER_HEAD, SPAN_FEATURES, SPAN_HEAD
    from evidence.eval.metrics_papers import answer_correct, locate_quote, overlaps
    from evidence.models import Evaluation

    evaluation = Evaluation.objects.get(pk=int(sys.argv[1]))
    gold = {str(q["qid"]): q for q in json.loads(Path(sys.argv[2]).read_text())}
    ax, ay, ag, sx, sy, sg = [], [], [], [], [], []
    for item in evaluation.items.select_related("run"):
        signals = (item.run.answer or {}).get("signals")
        if not signals:
            continue
        q = gold[item.qid]
        texts = dict(item.run.collection.documents.values_list("docid", "text"))
        ranges = [
            (e["docid"], a, b) for e in q["evidence"] for a, b in locate_quote(texts.get(e["docid"], ""), e["quote"])
        ]
        paper = q["evidence"][0]["docid"] if q["evidence"] else signals["spans"][0]["docid"]
        right = q["type"] != "unanswerable" and answer_correct(signals.get("candidate") or "", q["answers"], q["type"])
        ax.append([signals["answer"][f] for f in ANSWER_FEATURES])
        ay.append(float(right))
        ag.append(paper)
        for span in signals["spans"]:
            sx.append([span[f] for f in SPAN_FEATURES])
            sy.append(float(any(overlaps((span["docid"], span["start"], span["end"]), r) for r in ranges)))
            sg.append(paper)
    for name, names, x, y, g in ((ANSWER_HEAD, ANSWER_FEATURES, ax, ay, ag), (SPAN_HEAD, SPAN_FEATURES, sx, sy, sg)):
        head, _oof, ece = fit(np.asarray(x, float), np.asarray(y, float), g, list(names), name)
        print(
            json.dumps(
                {
                    "head": name,
                    "n": len(y),
                    "positives": int(sum(y)),
                    "ece_lopo": round(float(ece), 4),
                    "reliability": head.meta["reliability_leave_one_paper_out"],
                    "coef": dict(zip(names, [round(c, 3) for c in head.coef], strict=True)),
                }
            )
        )
        if "--save" in sys.argv:
            head.save()


if __name__ == "__main__":
    main()
