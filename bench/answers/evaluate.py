"""Read real questions through the answer layer offline, fit its confidence out of fold, and report the figures.

The answer of a question is what the product writes: the layer's short answer from the sentences the run read,
withheld below the threshold, "not found" when the layer says the collection does not answer, and the cited
sentences (the answer's sentence first, then the best others) for evidence found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evidence.answers.layer import FOUND_FEATURES, confidence_row, found_in_collection, found_row, short_answer
from evidence.answers.ranker_rows import feature_names
from evidence.encode.embedding import get_embedder
from evidence.eval.metrics_papers import answer_correct, expected_calibration_error

CITED = 3


class Booster:
    """A LightGBM booster seen as the layer's ranker."""

    def __init__(self, booster: Any) -> None:
        self.booster = booster
        self.features = feature_names()

    def probability(self, x: np.ndarray) -> np.ndarray:
        return self.booster.predict(x) if len(x) else np.zeros(0)


class Logistic:
    """A fitted logistic regression seen as the layer's calibration."""

    def __init__(self, names: list[str], mean: np.ndarray, scale: np.ndarray, model: Any, threshold: float) -> None:
        self.features, self.mean, self.scale, self.model = names, mean, scale, model
        self.meta = {"threshold": threshold}

    def probability(self, x: np.ndarray) -> np.ndarray:
        return self.model.predict_proba((x - self.mean) / self.scale)[:, 1]


@dataclass
class Record:
    item: Any
    kind: str
    text: str
    signals: dict[str, float]
    correct: bool  # the candidate is right (strict), whether or not it would be shown
    found: bool
    evidence_hit: bool
    p: float = 0.0  # P(right) once calibrated


def evaluate_sets(ranker: Any, items: Sequence[Any]) -> list[Record]:
    """Read every real question through the layer with this ranker (before calibration)."""
    wrapped = Booster(ranker)
    records = []
    for item in items:
        short = short_answer(
            item.question,
            item.sentences,
            item.absent,
            ranker=wrapped,
            confidence=_Identity(),
            context=item.context,
            embed=get_embedder().embed,
        )
        lead = short.sentence if short.sentence is not None else 0
        cited = [lead, *[i for i in range(len(item.sentences)) if i != lead][: CITED - 1]]
        refs = [item.refs[i] for i in cited if i < len(item.refs)]
        hit = any(d == g and s < ge and gs < e for d, s, e in refs for g, gs, ge in item.gold_ranges)
        correct = item.answerable and bool(short.text) and answer_correct(short.text, item.answers, item.qtype, True)
        records.append(
            Record(item, short.kind, short.text, dict(short.signals), correct, found_in_collection(short), hit)
        )
    return records


class _Identity:
    """A calibration that passes the ranker's p through (the fit calibrates afterwards)."""

    features = ["top_logit"]
    meta = {"threshold": 0.0}

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-x[:, 0]))


def calibrate(
    records: list[Record], pool: Sequence[str], c: float, max_wrong: float
) -> tuple[Logistic, float, dict[str, Any]]:
    """Fit P(right) on the pool's records (leave-one-paper-out for its own figures), choose the threshold on the
    pool's out-of-fold predictions, predict the other sets with the model fitted on the whole pool."""
    from sklearn.linear_model import LogisticRegression

    names = list(confidence_row("count", records[0].signals).keys()) if records else []
    x = np.asarray([[confidence_row(r.kind, r.signals)[n] for n in names] for r in records], dtype=float)
    y = np.asarray([r.correct for r in records], dtype=float)
    in_pool = np.asarray([r.item.source in pool for r in records])
    mean, scale, final, p = out_of_fold(records, x, y, in_pool, lambda: LogisticRegression(C=c))
    for r, pi in zip(records, p, strict=True):
        r.p = float(pi) if r.found else 0.0
    threshold = choose_threshold([r for r in records if r.item.source in pool], max_wrong)
    figures = {s: summarize([r for r in records if r.item.source == s], threshold)
               for s in sorted({r.item.source for r in records})}  # fmt: skip
    figures["pool"] = summarize([r for r in records if r.item.source in pool], threshold)
    return Logistic(names, mean, scale, final, threshold), threshold, figures


def out_of_fold(records: list[Record], x: np.ndarray, y: np.ndarray, in_pool: np.ndarray, make: Any):
    """Standardise on the pool, predict each pool paper with a model fitted without it (leave-one-paper-out) and
    everything else with the model fitted on the whole pool; return (mean, scale, that model, predictions)."""
    mean, scale = x[in_pool].mean(0), x[in_pool].std(0) + 1e-9
    z = (x - mean) / scale
    groups = [r.item.group for r in records]
    oof = np.zeros(len(records))
    for g in sorted({groups[i] for i in np.flatnonzero(in_pool)}):
        test = np.asarray([gg == g for gg in groups]) & in_pool
        train = in_pool & ~test
        oof[test] = make().fit(z[train], y[train]).predict_proba(z[test])[:, 1]
    final = make().fit(z[in_pool], y[in_pool])
    return mean, scale, final, np.where(in_pool, oof, final.predict_proba(z)[:, 1])


def fit_found(records: list[Record], pool: Sequence[str], c: float, max_false: float) -> Logistic:
    """Fit P(the collection answers the question) on the pool (answerable or not), leave-one-paper-out for the pool's
    own decisions; its threshold is the highest that keeps false "not found" within max_false on the pool."""
    from sklearn.linear_model import LogisticRegression

    names = list(FOUND_FEATURES)
    x = np.asarray([[found_row(r.signals)[n] for n in names] for r in records], dtype=float)
    y = np.asarray([r.item.answerable for r in records], dtype=float)
    in_pool = np.asarray([r.item.source in pool for r in records])
    mean, scale, final, p = out_of_fold(
        records, x, y, in_pool, lambda: LogisticRegression(C=c, class_weight="balanced")
    )
    pool_p = p[in_pool]
    answerable = y[in_pool] > 0
    threshold = 0.0
    for t in np.arange(0.05, 0.96, 0.01):
        if np.mean(pool_p[answerable] < t) <= max_false:
            threshold = round(float(t), 2)
    for r, pi in zip(records, p, strict=True):
        r.found = bool(r.text) and pi >= threshold
    return Logistic(names, mean, scale, final, threshold)


def choose_threshold(records: list[Record], max_wrong: float) -> float:
    """The threshold that answers most questions right while showing few wrong answers at P(right) >= 0.5."""
    best = (-1.0, 0.5)
    for t in np.arange(0.10, 0.71, 0.02):
        s = summarize(records, float(t))
        if s["confident_wrong"] <= max_wrong and s["answer_strict"] > best[0]:
            best = (s["answer_strict"], round(float(t), 2))
    return best[1]


def summarize(records: list[Record], threshold: float) -> dict[str, Any]:
    """The papers benchmark's answer figures for records read at a threshold."""
    answerable = [r for r in records if r.item.answerable]
    unanswerable = [r for r in records if not r.item.answerable]
    shown = [r for r in answerable if r.found and r.p >= threshold]
    right = [r for r in shown if r.correct]
    confident_wrong = [r for r in shown if not r.correct and r.p >= 0.5]
    answered = [r for r in records if r.found and r.p >= threshold]
    share = lambda n, d: round(n / d, 4) if d else 0.0  # noqa: E731
    return {
        "questions": len(records),
        "answerable": len(answerable),
        "evidence_hit": share(sum(r.evidence_hit for r in answerable), len(answerable)),
        "answer_strict": share(len(right), len(answerable)),
        "candidate_right": share(sum(r.correct for r in answerable), len(answerable)),
        "withheld": share(sum(r.found and r.p < threshold for r in answerable), len(answerable)),
        "confident_wrong": share(len(confident_wrong), len(answerable)),
        "wrong_among_shown": share(len(answered) - len(right), len(answered)),
        "auroc": round(_auroc([r.p for r in records if r.found], [r.correct for r in records if r.found]), 4),
        "ece": round(expected_calibration_error([r.p for r in records], [r.correct for r in records]), 4),
        "abstain_correct": share(sum(not r.found for r in unanswerable), len(unanswerable)),
        "false_abstain": share(sum(not r.found for r in answerable), len(answerable)),
    }


def _auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    pos = [s for s, right in zip(scores, labels, strict=True) if right]
    neg = [s for s, right in zip(scores, labels, strict=True) if not right]
    if not pos or not neg:
        return math.nan
    return sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))


def logistic_file(name: str, model: Logistic, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "logistic",
        "features": model.features,
        "mean": model.mean.tolist(),
        "scale": model.scale.tolist(),
        "coef": model.model.coef_[0].tolist(),
        "intercept": float(model.model.intercept_[0]),
        "platt": [1.0, 0.0],
        "meta": meta,
    }


def save_models(
    ranker: Any, confidence: Logistic, threshold: float, found: Logistic, report: dict[str, Any]
) -> list[str]:
    """Write answer_ranker.json, answer_confidence.json and answer_found.json (and their hashes)."""
    from evidence.answers.layer import CONFIDENCE, FOUND, RANKER
    from evidence.answers.trees import flatten_lightgbm, save

    trees = flatten_lightgbm(ranker.dump_model())
    meta = {k: report[k] for k in ("cloze_questions", "cloze_rows", "cloze_top1_cv") if k in report}
    paths = [
        save(
            {
                "name": RANKER,
                "kind": "trees",
                "features": feature_names(),
                "trees": trees,
                "platt": [1.0, 0.0],
                "meta": meta,
            }
        ),
        save(logistic_file(CONFIDENCE, confidence, {"threshold": threshold, "sets": report.get("sets", {})})),
        save(logistic_file(FOUND, found, {"threshold": found.meta["threshold"]})),
    ]
    return [str(p) for p in paths]


def diagnostics(records: list[Record], ranker: Any) -> str:
    """Per question: the gold answer, the layer's answer and p, and where the right candidates ranked."""
    from evidence.answers.layer import rank
    from evidence.text.question import analyse

    lines = []
    for r in records:
        item = r.item
        head = f"{item.qid} [{item.source} {item.qtype}/{r.kind}] ok={int(r.correct)} p={r.p:.2f} found={int(r.found)}"
        lines.append(f"{head} ev={int(r.evidence_hit)} Q: {item.question}")
        lines.append(f"    gold={item.answers[:3]} answer={r.text!r}")
        if r.kind == "yes_no" or not item.sentences:
            continue
        ranked = rank(analyse(item.question), item.sentences, Booster(ranker), item.context, get_embedder().embed)
        right = [
            (n, p, i, c.text)
            for n, (p, i, c) in enumerate(ranked.items)
            if answer_correct(c.text, item.answers, item.qtype, True)
        ]
        top = [f"{c.text!r}:{p:.2f}@s{i}" for p, i, c in ranked.items[:5]]
        lines.append(f"    top={top}")
        lines.append(f"    right={[(n, round(p, 2), i, t) for n, p, i, t in right[:3]]}")
    return "\n".join(lines) + "\n"
