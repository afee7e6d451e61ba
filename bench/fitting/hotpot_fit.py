"""Fit the multi-hop heads on HotpotQA (paragraphs, sentences, linked pairs) by question folds, and score them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.fitting import devsets
from bench.fitting import scifact_pipeline as sp
from bench.fitting.fit import fit_head, oof_predictions
from bench.fitting.metrics import reliability, set_f1
from bench.fitting.question_tables import question_tables
from evidence.judge.features import BLOCK_FEATURES, STACKED_FEATURES, UNIT_FEATURES
from evidence.judge.heads import Head
from evidence.judge.local import stack_unit_probabilities
from evidence.judge.multihop import (
    CONDITIONAL_FEATURES,
    PAIR_FEATURES,
    conditional_rows,
    pair_features,
    pair_rows,
    select_support,
)

HOTPOT_PARAGRAPHS = 2  # HotpotQA questions have two gold paragraphs


# Five findings-style features fitted for SciFact; on HotpotQA they cost 0.03 sentence F1 (grouped CV).
MULTIHOP_FEATURES: tuple[str, ...] = tuple(
    n
    for n in BLOCK_FEATURES
    if n not in ("unit_score_raw", "bigram_overlap", "stat_cue", "result_cue", "conclusion_cue")
)
HOTPOT_FOLDS = 5


def _fit_multihop(tables: tuple[Any, ...], questions: np.ndarray, suffix: str, out: Path) -> tuple[Head, Head]:
    """Fit the paragraph head and the stacked sentence head on a subset of HotpotQA questions; save both."""
    ux, uy, ug, bx, by, bg, _, sizes = tables
    sizes = np.asarray(sizes)
    um, bm = np.isin(ug, questions), np.isin(bg, questions)
    fitted_on = "hotpotqa dev 30 (all)" if not suffix else f"hotpotqa dev 30 without fold {suffix[5:]}"
    unit_head, _ = fit_head(
        f"multihop_unit{suffix}",
        UNIT_FEATURES,
        ux[um],
        uy[um],
        ug[um],
        "logistic",
        c=0.1,
        meta={"fitted_on": fitted_on},
    )
    unit_head.save(out)
    # Stack out-of-fold paragraph probabilities: the sentence head must not learn from its own fit.
    up = unit_head.platt[0] * oof_predictions(ux[um], uy[um], ug[um], "logistic", 0.1) + unit_head.platt[1]
    up = 1.0 / (1.0 + np.exp(-up))
    cols = [BLOCK_FEATURES.index(n) for n in MULTIHOP_FEATURES]
    sub_g, sub_sizes = ug[um], sizes[um]
    sx = np.concatenate(
        [stack_unit_probabilities(bx[bg == qi][:, cols], up[sub_g == qi], sub_sizes[sub_g == qi]) for qi in questions]
    )
    head, _ = fit_head(
        f"multihop{suffix}",
        [*MULTIHOP_FEATURES, *STACKED_FEATURES],
        sx,
        by[bm],
        bg[bm],
        "logistic",
        c=0.1,
        meta={"fitted_on": fitted_on, "unit_head": f"multihop_unit{suffix}"},
    )
    head.save(out)
    return unit_head, head


MULTIHOP_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


def _pair_tables(qs: devsets.QuestionSet) -> list[tuple[list[tuple[int, int]], np.ndarray, np.ndarray]]:
    """Return per question: its unit pairs, their static pair features and labels (both paragraphs gold)."""
    out = []
    for qi, q in enumerate(qs.questions):
        units = qs.units_for(qi)
        _, uv = sp._arrays(units)
        pairs, static = pair_features(q.text, qs.query_vecs[qi], units, uv)
        gold = [bool(q.gold.get(u.docid)) for u in units]
        out.append((pairs, static, np.array([int(gold[i] and gold[j]) for i, j in pairs])))
    return out


def _fit_multihop_pairs(
    tables: tuple[Any, ...], pairs: list[Any], questions: np.ndarray, suffix: str, out: Path
) -> tuple[Head, Head]:
    """Fit the pair and conditional sentence heads on a subset of HotpotQA questions; save both.

    The unit head they read is `multihop_unit{suffix}`, fitted on the same questions by _fit_multihop.

    Pair and sentence heads read out-of-fold unit logits (oof_predictions over these questions), as
    they will read a unit head that was not fitted on the question at run time. The sentence head is
    fitted on the sentences of the two gold paragraphs (each with the other as partner); its threshold
    is the one with the best out-of-fold sp F1 on those pairs.
    """
    ux, uy, ug, bx, by, bg, keys, sizes = tables
    sizes = np.asarray(sizes)
    questions = np.sort(questions)
    um = np.isin(ug, questions)
    fitted_on = "hotpotqa dev 30 (all)" if not suffix else f"hotpotqa dev 30 without fold {suffix[5:]}"
    oof = oof_predictions(ux[um], uy[um], ug[um], "logistic", 0.1)
    logit = {qi: oof[ug[um] == qi] for qi in questions}
    px = np.concatenate([pair_rows(logit[qi], pairs[qi][0], pairs[qi][1]) for qi in questions])
    py = np.concatenate([pairs[qi][2] for qi in questions])
    pg = np.concatenate([np.full(len(pairs[qi][2]), qi) for qi in questions])
    pair_head, _ = fit_head(
        f"multihop_pair{suffix}",
        PAIR_FEATURES,
        px,
        py,
        pg,
        "logistic",
        c=0.1,
        meta={"fitted_on": fitted_on, "unit_head": f"multihop_unit{suffix}"},
    )
    pair_head.save(out)
    cols = [BLOCK_FEATURES.index(n) for n in MULTIHOP_FEATURES]
    sx, sy, sg, skey = [], [], [], []
    for qi in questions:
        qb = bg == qi
        starts = np.concatenate([[0], np.cumsum(sizes[ug == qi])])
        gold = np.flatnonzero(uy[ug == qi])
        if len(gold) != 2:
            continue
        xq, yq = bx[qb][:, cols], by[qb]  # cols: MULTIHOP_FEATURES
        kq = [keys[i] for i in np.flatnonzero(qb)]
        for u, partner in ((gold[0], gold[1]), (gold[1], gold[0])):
            s, e = starts[u], starts[u + 1]
            sx.append(conditional_rows(xq[s:e], logit[qi][u], logit[qi][partner]))
            sy.append(yq[s:e])
            sg.append(np.full(e - s, qi))
            skey += kq[s:e]
    sx, sy, sg = np.concatenate(sx), np.concatenate(sy), np.concatenate(sg)
    sent_head, soof = fit_head(
        f"multihop_sentence{suffix}",
        [*MULTIHOP_FEATURES, *CONDITIONAL_FEATURES],
        sx,
        sy,
        sg,
        "logistic",
        c=0.1,
        meta={"fitted_on": fitted_on, "unit_head": f"multihop_unit{suffix}", "pair_head": f"multihop_pair{suffix}"},
    )
    f1 = {}
    for t in MULTIHOP_THRESHOLDS:
        scores = []
        for qi in np.unique(sg):
            idx = np.flatnonzero(sg == qi)
            pred = set()
            for doc in {skey[i][1] for i in idx}:
                d_idx = [i for i in idx if skey[i][1] == doc]
                pred |= {(doc, skey[i][2]) for i in d_idx if soof[i] >= t}
                pred.add((doc, skey[max(d_idx, key=lambda i: soof[i])][2]))
            scores.append(set_f1(pred, {(skey[i][1], skey[i][2]) for i in idx if sy[i]}))
        f1[t] = round(float(np.mean(scores)), 4)
    sent_head.meta["threshold"] = max(f1, key=f1.__getitem__)  # first best: chosen on out-of-fold fit predictions
    sent_head.meta["cv_sp_f1_gold_pairs_by_threshold"] = f1
    sent_head.save(out)
    return pair_head, sent_head


def fit_hotpotqa(out: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Fit the multi-hop heads on HotpotQA dev 30 plus one pair per fold; return (CV report, question -> fold).

    The CV figure is what the fold heads (each fitted without its fold's questions) score on their fold.
    """
    qs = devsets.load_hotpotqa()
    tables = question_tables(qs)
    ux, _, ug, bx, by, bg, keys, sizes = tables
    sizes_a = np.asarray(sizes)
    order = sorted(range(len(qs.questions)), key=lambda i: qs.questions[i].id)
    fold_of = {qi: rank % HOTPOT_FOLDS for rank, qi in enumerate(order)}
    _fit_multihop(tables, np.arange(len(qs.questions)), "", out)
    cols = [BLOCK_FEATURES.index(n) for n in MULTIHOP_FEATURES]
    up, bp = np.zeros(len(ug)), np.zeros(len(bg))
    for k in range(HOTPOT_FOLDS):
        test = np.array([qi for qi, f in fold_of.items() if f == k])
        unit_head, head = _fit_multihop(tables, np.setdiff1d(np.arange(len(qs.questions)), test), f"_fold{k}", out)
        for qi in test:
            um, bm = ug == qi, bg == qi
            up[um] = unit_head.predict(ux[um])
            bp[bm] = head.predict(stack_unit_probabilities(bx[bm][:, cols], up[um], sizes_a[um]))
    table, ece = reliability(bp, by)
    result = {
        "sp_f1_cv": round(hotpot_sp_f1(qs, keys, bp, up, ug), 4),
        "folds": HOTPOT_FOLDS,
        "ece_cv": ece,
        "reliability_cv": table,
    }
    full = Head.load("multihop", out)
    full.meta["cv"] = result
    full.save(out)
    result["pairs"] = fit_hotpotqa_pairs(qs, tables, fold_of, out)
    return result, {qs.questions[qi].id: f for qi, f in fold_of.items()}


def fit_hotpotqa_pairs(
    qs: devsets.QuestionSet, tables: tuple[Any, ...], fold_of: dict[int, int], out: Path
) -> dict[str, Any]:
    """Fit the pair reader's heads on all questions and per fold; return its CV sp F1 and pair accuracy.

    Needs the multihop_unit heads (all questions and per fold) that fit_hotpotqa has just saved.
    """
    ux, _, ug, bx, _, bg, _, sizes = tables
    sizes_a = np.asarray(sizes)
    pairs = _pair_tables(qs)
    _fit_multihop_pairs(tables, pairs, np.arange(len(qs.questions)), "", out)
    f1s, hits = [], []
    for k in range(HOTPOT_FOLDS):
        test = np.array([qi for qi, f in fold_of.items() if f == k])
        rest = np.setdiff1d(np.arange(len(qs.questions)), test)
        pair_head, sent_head = _fit_multihop_pairs(tables, pairs, rest, f"_fold{k}", out)
        unit_head = Head.load(f"multihop_unit_fold{k}", out)
        for qi in test:
            q, um, bm = qs.questions[qi], ug == qi, bg == qi
            (i, j), _, chosen = select_support(
                pair_head, sent_head, unit_head.raw(ux[um]), pairs[qi][0], pairs[qi][1], bx[bm], sizes_a[um]
            )
            hits.append(bool(q.gold[q.docids[i]]) and bool(q.gold[q.docids[j]]))
            units = qs.units_for(qi)
            pred = {(units[u].docid, units[u].blocks[b].position) for u, bs in chosen.items() for b in bs}
            f1s.append(set_f1(pred, {(d, s) for d, ss in q.gold.items() for s in ss}))
    result = {"sp_f1_cv": round(float(np.mean(f1s)), 4), "pair_accuracy_cv": round(float(np.mean(hits)), 4)}
    full = Head.load("multihop_sentence", out)
    full.meta["cv"] = result
    full.save(out)
    return result


def hotpot_sp_f1(
    qs: devsets.QuestionSet,
    keys: Sequence[tuple[int, str, int]],
    p: np.ndarray,
    unit_p: np.ndarray,
    unit_g: np.ndarray,
    t: float = 0.3,
) -> float:
    """Return mean supporting-fact F1: the two most probable paragraphs, their best sentence plus any >= t."""
    f1s = []
    for qi, q in enumerate(qs.questions):
        docs = [q.docids[i] for i in np.argsort(-unit_p[unit_g == qi], kind="stable")[:HOTPOT_PARAGRAPHS]]
        rows = [(p[i], keys[i][1], keys[i][2]) for i in range(len(keys)) if keys[i][0] == qi and keys[i][1] in docs]
        pred = {(d, s) for pp, d, s in rows if pp >= t}
        for d in docs:
            best = max((r for r in rows if r[1] == d), default=None)
            if best:
                pred.add((d, best[2]))
        f1s.append(set_f1(pred, {(d, s) for d, ss in q.gold.items() for s in ss}))
    return float(np.mean(f1s))
