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


C = 0.1  # strong L2: ~30 questions; chosen by leave-one-paper-out ECE on realqa dev among 0.05/0.1/0.3/0.5


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


def fit(x: np.ndarray, y: np.ndarray, groups: list[str], names: list[str], name: str, c: float = C):
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
    from evidence.agent.readers.general import (
        ABSTAINED_CONFIDENCE,
        ANSWER_FEATURES,
        ANSWER_HEAD,
        SPAN_FEATURES,
        SPAN_HEAD,
    )
    from evidence.eval.metrics_papers import (
        answer_correct,
        expected_calibration_error,
        is_abstention,
        locate_quote,
        overlaps,
        reliability_bins,
    )
    from evidence.models import Evaluation

    evaluation = Evaluation.objects.get(pk=int(sys.argv[1]))
    gold = {str(q["qid"]): q for q in json.loads(Path(sys.argv[2]).read_text())}
    ax, ay, ag, sx, sy, sg = [], [], [], [], [], []
    delivered_right, abstained = [], []
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
        exact = str(item.run.answer.get("exact_answer") or "")
        abstained.append(is_abstention(exact))
        delivered_right.append(q["type"] != "unanswerable" and answer_correct(exact, q["answers"], q["type"]))
        ax.append([signals["answer"][f] for f in ANSWER_FEATURES])
        ay.append(float(right))
        ag.append(paper)
        for span in signals["spans"]:
            sx.append([span[f] for f in SPAN_FEATURES])
            sy.append(float(any(overlaps((span["docid"], span["start"], span["end"]), r) for r in ranges)))
            sg.append(paper)
    for name, names, x, y, g in ((ANSWER_HEAD, ANSWER_FEATURES, ax, ay, ag), (SPAN_HEAD, SPAN_FEATURES, sx, sy, sg)):
        head, oof, ece = fit(np.asarray(x, float), np.asarray(y, float), g, list(names), name)
        if name == ANSWER_HEAD:
            # The confidence the user sees: P(right) out of fold, capped for an abstention (never a right answer),
            # against whether the delivered answer was right.
            shown = [min(p, ABSTAINED_CONFIDENCE) if a else p for p, a in zip(oof, abstained, strict=True)]
            head.meta["ece_shown_leave_one_paper_out"] = round(expected_calibration_error(shown, delivered_right), 4)
            head.meta["reliability_shown_leave_one_paper_out"] = reliability_bins(shown, delivered_right)
        print(
            json.dumps(
                {
                    "head": name,
                    "n": len(y),
                    "positives": int(sum(y)),
                    "ece_lopo": round(float(ece), 4),
                    "ece_shown_lopo": head.meta.get("ece_shown_leave_one_paper_out"),
                    "reliability_shown_lopo": head.meta.get("reliability_shown_leave_one_paper_out"),
                    "reliability": head.meta["reliability_leave_one_paper_out"],
                    "coef": dict(zip(names, [round(c, 3) for c in head.coef], strict=True)),
                }
            )
        )
        if "--save" in sys.argv:
            head.save()


if __name__ == "__main__":
    main()
