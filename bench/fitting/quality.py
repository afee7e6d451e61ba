"""Held-out quality of the local judge on SciFact (the last 20% of train claims, never fitted on)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.fitting import devsets
from bench.fitting import scifact_pipeline as sp
from bench.fitting.metrics import ndcg_at, prf, recall_at, reliability
from bench.fitting.report import split_indices
from evidence.judge.heads import PARAMS_DIR, Head
from evidence.judge.local import LocalJudge
from evidence.judge.relevance import assess_relevance
from evidence.judge.types import Unit


def cosine_baseline(sf: devsets.SciFact, claims: Sequence[int], t: float) -> set[tuple[int, str, int]]:
    """Select sentences of the top fused abstract whose cosine to the claim reaches t (the plain baseline)."""
    picked = set()
    for ci in claims:
        [unit] = sf.candidate_units(sf.rankings(ci)["fusion"], 1)
        for b in unit.blocks:
            if float(b.vector @ sf.query_vecs[ci]) >= t:  # type: ignore[operator]
                picked.add((ci, unit.docid, b.position))
    return picked


def tune_cosine(sf: devsets.SciFact, fit: Sequence[int]) -> float:
    """Return the cosine threshold with the best rationale F1 on the fit claims."""
    gold = sp.gold_rationales(sf, fit)
    grid = np.arange(0.3, 0.8, 0.025)
    return float(max(grid, key=lambda t: prf(cosine_baseline(sf, fit, t), gold)["f1"]))


def dual_rankings(
    judge: LocalJudge, sf: devsets.SciFact, claims: Sequence[int]
) -> tuple[list[list[str]], list[list[str]], list[list[Unit]], list[float]]:
    """Return (relevance ranking with the continue-judgment, full re-rank, re-ranked units, p_d list) per claim."""
    stepwise, full, ranked, seconds = [], [], [], []
    for ci in claims:
        units = sf.candidate_units(sf.rankings(ci)["fusion"], sp.DOC_DEPTH)
        start = time.perf_counter()
        result = assess_relevance(judge, sf.claims[ci].text, units)
        seconds.append(time.perf_counter() - start)
        stepwise.append(result.ranking())
        probs = judge.unit_probabilities(sf.claims[ci].text, units, sf.query_vecs[ci])
        reranked = sp.reranked(units, probs)
        ranked.append(reranked)
        full.append([u.docid for u in reranked])
    return stepwise, full, ranked, seconds


def held_out_report(
    params: Path = PARAMS_DIR, sentence_docs: int = sp.SENTENCE_DOCS, cosine: bool = True
) -> dict[str, Any]:
    """Return every SciFact figure on the held-out claims, plus calibration of the document and sentence heads.

    ``cosine=False`` skips the cosine-threshold baseline (its tuning ranks every fit claim 20 times).
    """
    sf = devsets.load_scifact()
    fit, held = split_indices(sf)
    judge = LocalJudge(params)
    for ci in held:  # goal vectors are stored (cached), so judging is dot products and features
        judge._goal_vecs[sf.claims[ci].text] = sf.query_vecs[ci]
    retrieval = {
        name: [[sf.docs[i].docid or "" for i, _ in sf.rankings(ci)[name]] for ci in held]
        for name in ("bm25", "dense", "fusion", "rrf")
    }
    stepwise, full, ranked, seconds = dual_rankings(judge, sf, held)
    figures = sp.ranking_figures(sf, held, {**retrieval, "dual": stepwise, "dual_rerank_all_100": full})
    best_retrieval = max(("bm25", "dense", "fusion", "rrf"), key=lambda n: figures[n]["ndcg@10"])

    gold = sp.gold_rationales(sf, held)
    t_sent = sp.sentence_threshold(params)
    picked = {
        "rules": sp.localize_rationales(judge, sf, held, ranked, k=sentence_docs, **sp.RULES_OPTIONS),
        "threshold": sp.localize_rationales(
            judge, sf, held, ranked, k=sentence_docs, **{**sp.RULES_OPTIONS, "threshold": t_sent}
        ),
    }
    t_cos = tune_cosine(sf, fit) if cosine else None
    x, y, _, keys = sp.sentence_table(sf, held, ranked, k=sentence_docs)
    sentence_head = judge.head("sentence")
    p_sent = sentence_head.predict(sentence_head.select(x, sp.BLOCK_FEATURES))
    doc_p = np.concatenate([[u.score for u in units] for units in ranked])
    doc_y = np.concatenate(
        [[u.docid in sf.claims[ci].cited for u in units] for ci, units in zip(held, ranked, strict=True)]
    )
    sent_table, sent_ece = reliability(p_sent, y)
    doc_table, doc_ece = reliability(doc_p, doc_y)
    hotpot = Head.load("multihop_sentence", params).meta.get("cv", {})
    qasper = Head.load("paragraph", params).meta.get("cv", {})
    targets = {
        "scifact_rationale_f1_held_out (>= 0.50)": sp.rationale_prf(picked[sp.DEFAULT_SELECTOR], gold)["rationale_f1"],
        "scifact_dual_minus_best_retrieval_ndcg@10_held_out (>= 0.02)": round(
            figures["dual"]["ndcg@10"] - figures[best_retrieval]["ndcg@10"], 4
        ),
        "hotpotqa_supporting_sentence_f1_cv (>= 0.70)": hotpot.get("sp_f1_cv"),
        "qasper_evidence_f1_paper_reader_in_sample (>= 0.38)": Head.load("paper_reader", params).meta.get(
            "evidence_f1_in_sample"
        ),
        "qasper_evidence_f1_top2_cv_by_question": qasper.get("evidence_f1_cv"),
        "qasper_evidence_f1_top2_cv_by_paper": qasper.get("evidence_f1_cv_by_paper"),
    }
    return {
        "targets": targets,
        "claims": len(held),
        "ranking": {k: {m: round(v, 4) for m, v in d.items()} for k, d in figures.items()},
        "best_retrieval_only": best_retrieval,
        "dual_minus_best_retrieval_ndcg@10": round(figures["dual"]["ndcg@10"] - figures[best_retrieval]["ndcg@10"], 4),
        "relevance_seconds_per_claim_p50": round(float(np.median(seconds)), 4),
        "rationale_default_selector": sp.DEFAULT_SELECTOR,
        "rationale_dual_localization": sp.rationale_prf(picked[sp.DEFAULT_SELECTOR], gold),
        "rationale_localization_spec4_rules": sp.rationale_prf(picked["rules"], gold),
        "rationale_localization_threshold": {"threshold": t_sent, **sp.rationale_prf(picked["threshold"], gold)},
        "rationale_sentence_threshold": {
            "threshold_tuned_on_fit": t_sent,
            **sp.rationale_prf(sp.select_by_threshold(keys, p_sent, t_sent), gold),
        },
        "rationale_cosine_baseline": {}
        if t_cos is None
        else {"threshold_tuned_on_fit": round(t_cos, 3), **sp.rationale_prf(cosine_baseline(sf, held, t_cos), gold)},
        "calibration": {
            "sentence": {"ece": sent_ece, "table": sent_table},
            "document": {"ece": doc_ece, "table": doc_table},
        },
    }


def recall_funnel(sf: devsets.SciFact, claims: Sequence[int], lists: Sequence[Sequence[str]]) -> dict[str, float]:
    """Return mean recall@k of cited abstracts for a few depths."""
    pairs = list(zip(claims, lists, strict=True))
    return {
        f"recall@{k}": float(np.mean([recall_at(r, set(sf.claims[ci].cited), k) for ci, r in pairs]))
        for k in (1, 3, 10, 100)
    }


__all__ = ["held_out_report", "ndcg_at", "recall_funnel"]
