"""Fit every head of the local judge on the fixed split and report what it was not fitted on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import devsets
from . import scifact_pipeline as sp
from .data import split_claims
from .features import BLOCK_FEATURES, STACKED_FEATURES, UNIT_FEATURES, block_features, unit_features
from .fit import fit_head, oof_predictions
from .heads import PARAMS_DIR, Head
from .local import stack_unit_probabilities
from .metrics import ndcg_at, reliability, set_f1

QASPER_TOP = 2  # paragraphs selected per QASPER question
HOTPOT_PARAGRAPHS = 2  # HotpotQA questions have two gold paragraphs


def split_indices(sf: devsets.SciFact) -> tuple[list[int], list[int]]:
    """Return claim indices of the fit and held-out parts (claims sorted by id, 80 / 20)."""
    fit, held = split_claims(sf.claims)
    pos = {c.id: i for i, c in enumerate(sf.claims)}
    return [pos[c.id] for c in fit], [pos[c.id] for c in held]


def _ndcg_by_claim(
    sf: devsets.SciFact, claims: Sequence[int], cands: Sequence[Sequence[Any]], scores: np.ndarray
) -> float:
    """Return mean nDCG@10 of candidates re-ordered by scores (flat, claim-major)."""
    out, k = [], 0
    for ci, units in zip(claims, cands, strict=True):
        s = scores[k : k + len(units)]
        k += len(units)
        order = sorted(range(len(units)), key=lambda i: (-s[i], i))
        out.append(ndcg_at([units[i].docid for i in order], set(sf.claims[ci].cited), 10))
    return float(np.mean(out))


# Section and title flags are constant or meaningless on abstracts; the sentence head leaves them out.
SENTENCE_FEATURES: tuple[str, ...] = tuple(
    n for n in BLOCK_FEATURES if not n.startswith("sec_") and n not in ("title_in_goal", "title_in_top")
)


def fit_scifact(sf: devsets.SciFact, fit: Sequence[int], out: Path) -> dict[str, Any]:
    """Fit the document and sentence heads on the fit claims; kinds and threshold are chosen by fit-split CV.

    CV folds group claims that cite a common abstract (sp.claim_clusters), so no fold is scored on
    an abstract it was fitted on; with folds by claim the fit split read 0.05 nDCG@10 and 0.07
    rationale F1 too high against the held-out claims.
    """
    x, y, g, cands = sp.doc_table(sf, fit)
    cluster = sp.claim_clusters(sf, fit)
    c = np.array([cluster[int(ci)] for ci in g])
    oofs = {kind: oof_predictions(x, y, g, kind, clusters=c) for kind in ("logistic", "lambdarank")}
    cv = {kind: round(_ndcg_by_claim(sf, fit, cands, o), 4) for kind, o in oofs.items()}
    kind = max(cv, key=cv.__getitem__)  # logistic first: it wins ties (smaller, steadier)
    doc_head, _ = fit_head("document", UNIT_FEATURES, x, y, g, kind, clusters=c,
                           meta={"fitted_on": "scifact train, first 80%", "cv_ndcg@10_cluster_folds": cv})
    doc_head.save(out)
    # The sentence stage sees abstracts ranked by out-of-fold document scores, as it will at run time.
    ranked, k = [], 0
    for units in cands:
        ranked.append(sp.reranked(units, oofs[kind][k : k + len(units)]))
        k += len(units)
    sx, sy, sg, keys = sp.sentence_table(sf, fit, ranked, k=sp.SENTENCE_DOCS)
    cols = [BLOCK_FEATURES.index(n) for n in SENTENCE_FEATURES]
    sc = np.array([cluster[int(ci)] for ci in sg])
    sent_head, oof = fit_head("sentence", SENTENCE_FEATURES, sx[:, cols], sy, sg, "binary", clusters=sc,
                              meta={"fitted_on": "scifact train, first 80%", "docs": sp.SENTENCE_DOCS})
    gold = sp.gold_rationales(sf, fit)
    grid = [round(float(t), 3) for t in np.arange(0.1, 0.6, 0.025)]
    f1 = {t: sp.rationale_prf(sp.select_by_threshold(keys, oof, t), gold)["rationale_f1"] for t in grid}
    sent_head.meta["threshold"] = max(f1, key=f1.__getitem__)  # chosen on out-of-fold fit-split predictions
    sent_head.meta["cv_rationale_f1_by_threshold"] = f1
    sent_head.save(out)
    return {"document": {"kind": kind, **doc_head.meta},
            "sentence": {**sent_head.meta, "cv_rationale_f1": f1[sent_head.meta["threshold"]]}}


def _question_tables(
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


def fit_hotpotqa(out: Path) -> dict[str, Any]:
    """Fit the multi-hop paragraph and stacked sentence heads on HotpotQA dev 30; report grouped 5-fold CV."""
    qs = devsets.load_hotpotqa()
    ux, uy, ug, bx, by, bg, keys, sizes = _question_tables(qs)
    unit_head, _ = fit_head(
        "multihop_unit", UNIT_FEATURES, ux, uy, ug, "logistic", c=0.1, meta={"fitted_on": "hotpotqa dev 30 (all)"}
    )
    unit_head.save(out)
    # Stack out-of-fold paragraph probabilities so the CV figure never sees a question's own fit.
    up = oof_predictions(ux, uy, ug, "logistic", 0.1)
    sx = np.concatenate(
        [
            stack_unit_probabilities(bx[bg == qi], up[ug == qi], np.array(sizes)[ug == qi])
            for qi in range(len(qs.questions))
        ]
    )
    head, oof = fit_head(
        "multihop",
        [*BLOCK_FEATURES, *STACKED_FEATURES],
        sx,
        by,
        bg,
        "logistic",
        c=0.1,
        meta={"fitted_on": "hotpotqa dev 30 (all)", "unit_head": "multihop_unit"},
    )
    table, ece = reliability(oof, by)
    result = {"sp_f1_cv": round(hotpot_sp_f1(qs, keys, oof, up, ug), 4), "ece_cv": ece, "reliability_cv": table}
    head.meta["cv"] = result
    head.save(out)
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


def fit_qasper(out: Path) -> dict[str, Any]:
    """Fit the paragraph head on QASPER dev 25 and report grouped 5-fold CV evidence F1 (top 2)."""
    qs = devsets.load_qasper()
    _, _, _, bx, by, bg, keys, _ = _question_tables(qs)
    head, oof = fit_head(
        "paragraph",
        BLOCK_FEATURES,
        bx,
        by,
        bg,
        "logistic",
        c=0.03,
        meta={"fitted_on": "qasper dev 25 (all)", "top": QASPER_TOP},
    )
    f1s = []
    for qi, q in enumerate(qs.questions):
        idx = np.flatnonzero(bg == qi)
        top = {keys[i][2] for i in idx[np.argsort(-oof[idx], kind="stable")[:QASPER_TOP]]}
        f1s.append(set_f1(top, set(q.gold[q.docids[0]])))
    table, ece = reliability(oof, by)
    result = {"evidence_f1_cv": round(float(np.mean(f1s)), 4), "ece_cv": ece, "reliability_cv": table}
    head.meta["cv"] = result
    head.save(out)
    return result


def fit_all(out: Path = PARAMS_DIR) -> dict[str, Any]:
    """Fit all heads, save them under out, and return the fit report (held-out figures come from quality)."""
    sf = devsets.load_scifact()
    fit, held = split_indices(sf)
    report: dict[str, Any] = {
        "split": {
            "scifact_fit_claims": len(fit),
            "scifact_held_out_claims": len(held),
            "first_held_out_id": sf.claims[held[0]].id,
        }
    }
    report["scifact"] = fit_scifact(sf, fit, out)
    report["hotpotqa"] = fit_hotpotqa(out)
    report["qasper"] = fit_qasper(out)
    report["heads"] = {
        h: (out / f"{h}.json").stat().st_size
        for h in ("document", "sentence", "multihop_unit", "multihop", "paragraph")
    }
    return report


__all__ = ["Head", "fit_all", "split_indices"]
