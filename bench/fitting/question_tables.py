"""Every question's unit and block features, labels and groups, as the HotpotQA and QASPER fits read them."""

from __future__ import annotations

import numpy as np

from bench.fitting import devsets
from bench.fitting import scifact_pipeline as sp
from evidence.judge.features import block_features, unit_features


def question_tables(
    qs: devsets.QuestionSet,
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple[int, str, int]], list[int]
]:
    """Return unit and block features, labels and groups, block keys and blocks per unit for every question."""
    ux, uy, ug, bx, by, bg, keys, sizes = [], [], [], [], [], [], [], []
    for qi, q in enumerate(qs.questions):
        units = qs.units_for(qi)
        bv, uv = sp._arrays(units)
        ux.append(unit_features(q.text, qs.query_vecs[qi], units, bv, uv))
        bx.append(block_features(q.text, qs.query_vecs[qi], units, bv, uv))
        for u in units:
            gold = q.gold.get(u.docid, frozenset())
            uy.append(int(bool(gold)))
            ug.append(qi)
            sizes.append(len(u.blocks))
            for b in u.blocks:
                by.append(int(b.position in gold))
                bg.append(qi)
                keys.append((qi, u.docid, b.position))
    return (np.concatenate(ux), np.array(uy), np.array(ug), np.concatenate(bx), np.array(by), np.array(bg), keys, sizes)
