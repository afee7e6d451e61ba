"""The paper reader on QASPER dev: its evidence F1 (nothing fitted) and the calibration of its confidence.

The reader's picks come from z-scores of its paragraph scores within a paper. What a researcher sees next
to a picked paragraph is P(the paragraph is gold evidence | its z-score), a one-feature logistic fitted on
every paragraph of the 25 development questions. Its figures: ECE with papers left out (each paper's
probabilities from a fit on the other five), and the in-sample evidence F1 of the picks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.fitting import data as D
from bench.fitting import devsets
from bench.fitting.fit import _platt
from bench.fitting.metrics import reliability, set_f1
from evidence.judge.features import zscore
from evidence.judge.heads import Head
from evidence.judge.paper import CONFIDENCE_HEAD, paragraph_scores, pick_paragraphs

HEAD_NAME = CONFIDENCE_HEAD
FEATURES = ["paper_z"]


@dataclass
class ReaderRows:
    """Per paragraph of every question: its z-score in the paper, gold label, question and paper; picks per question."""

    z: np.ndarray
    gold: np.ndarray
    question: np.ndarray
    paper: np.ndarray
    f1: list[float]


def reader_rows() -> ReaderRows:
    """Score every paragraph of every QASPER dev question with the paper reader (cached MiniLM vectors)."""
    embedder = devsets._embedder()
    qs = devsets.load_qasper(embedder)
    docs = {d.docid: d for d in qs.docs}
    names = sorted({r.label for d in qs.docs for r in d.regions_of("paragraph")})
    key = D.sha256_file(D.DATA_DIR / "qasper" / "qasper-dev-sample.json")
    label_vecs = dict(
        zip(names, D.cached_embeddings("qasper-labels", key, names, embedder.embed, embedder.model_id), strict=True)
    )
    papers = sorted(docs)
    z, gold, question, paper, f1 = [], [], [], [], []
    for qi, q in enumerate(qs.questions):
        doc = docs[q.docids[0]]
        regions = doc.regions_of("paragraph")
        labels = [r.label for r in regions]
        texts = [doc.text[r.start : r.end] for r in regions]
        scores = paragraph_scores(q.text, qs.query_vecs[qi], texts, labels, np.stack([label_vecs[x] for x in labels]))
        truth = set(q.gold[q.docids[0]])
        f1.append(set_f1(set(pick_paragraphs(scores)), truth))
        z.append(zscore(scores))
        gold.append([i in truth for i in range(len(regions))])
        question.append([qi] * len(regions))
        paper.append([papers.index(q.docids[0])] * len(regions))
    return ReaderRows(*(np.concatenate(v) for v in (z, gold, question, paper)), f1)  # type: ignore[arg-type]


def calibration_head(z: np.ndarray, gold: np.ndarray, meta: dict[str, Any]) -> Head:
    """Return the one-feature head P(gold | z) (a logistic on the z-score)."""
    a, b = _platt(z, gold.astype(int))
    return Head(HEAD_NAME, FEATURES, "logistic", [0.0], [1.0], [a], b, (1.0, 0.0), meta=meta)


def fit_paper_reader(out: Path) -> dict[str, Any]:
    """Fit and save the reader's confidence head; return its figures (ECE with papers left out, evidence F1)."""
    rows = reader_rows()
    held = np.zeros(len(rows.z))
    for p in np.unique(rows.paper):
        test = rows.paper == p
        held[test] = calibration_head(rows.z[~test], rows.gold[~test], {}).predict(rows.z[test, None])
    table, ece = reliability(held, rows.gold)
    figures = {
        "evidence_f1_in_sample": round(float(np.mean(rows.f1)), 4),
        "ece_leave_one_paper_out": ece,
        "reliability_leave_one_paper_out": table,
    }
    head = calibration_head(rows.z, rows.gold, {"fitted_on": "qasper dev 25, every paragraph", **figures})
    head.save(out)
    return figures
