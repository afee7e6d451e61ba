"""The `local` System 1 provider: MiniLM cosines plus lexical features through calibrated heads.

Heads are chosen by block kind (and can be overridden per judge):
  sentence  -> "sentence"  (fitted on evidence sentences of scientific abstracts)
  paragraph -> "paragraph" (fitted on evidence paragraphs of research papers; its figures are grouped CV)
  units (Score, and the `document` view of a unit) -> "document" (abstracts cited for a claim, top 100)
`LocalJudge(heads={"sentence": "multihop"})` selects the sentence head fitted on two-hop questions;
  multihop  -> "multihop_sentence" (the pair reader's conditional sentence head, see multihop_support).
Evaluations on the sets a head was fitted on use its cross-fitted fold heads: see evidence/eval/folds.py heads_for.
A head reads the named subset of the feature columns it was fitted on (Head.select). The heads are fitted
offline by bench/fit_judge.py (bench/fitting/ names the labelled sets); this module only loads params/*.json.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from .features import BLOCK_FEATURES, STACKED_FEATURES, UNIT_FEATURES, block_features, unit_features
from .heads import PARAMS_DIR, Head
from .multihop import pair_features, select_support
from .types import Block, ChoiceAnswer, ChoiceQuestion, NoulQuestion, ScoreAnswer, ScoreQuestion, Unit

DEFAULT_HEADS = {
    "sentence": "sentence",
    "paragraph": "paragraph",
    "passage": "paragraph",
    "unit": "document",
    "multihop": "multihop_sentence",
}
Embed = Callable[[Sequence[str]], np.ndarray]


def grade_distribution(p: float) -> tuple[float, float, float, float]:
    """Spread a calibrated P(relevant) over 4 grades so that P(2) + P(3) == p exactly.

    The local heads are fitted on binary labels; a more certain "relevant" leans to grade 3 and a
    more certain "irrelevant" to grade 0 (P(3) = p^2, P(0) = (1 - p)^2).
    """
    return ((1 - p) ** 2, (1 - p) * p, p - p * p, p * p)


class LocalJudge:
    """Judge batches offline; one candidate set per goal gives BM25 idf, z-scores and gaps their context."""

    name = "local"

    def __init__(
        self,
        params_dir: Path = PARAMS_DIR,
        heads: Mapping[str, str] | None = None,
        embed: Embed | None = None,
        window_rule: str = "sum",
    ) -> None:
        self.params_dir = params_dir
        self.head_names = {**DEFAULT_HEADS, **(heads or {})}
        self._heads: dict[str, Head] = {}
        self._embed = embed
        self.window_rule = window_rule
        self._memo: OrderedDict[tuple[str, str, str, int, int], float] = OrderedDict()
        self._goal_vecs: OrderedDict[str, np.ndarray] = OrderedDict()

    # -- plumbing -------------------------------------------------------------------------------
    def head(self, name: str) -> Head:
        """Return a head by name, loading its parameter file once."""
        if name not in self._heads:
            self._heads[name] = Head.load(name, self.params_dir)
        return self._heads[name]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with the configured function, else the process-wide MiniLM embedder."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        if self._embed is None:
            from evidence.encode import get_embedder

            self._embed = get_embedder().embed
        return np.asarray(self._embed(list(texts)), dtype=np.float32)

    def goal_vector(self, goal: str, given: np.ndarray | None = None) -> np.ndarray:
        """Return the goal's embedding: the one given, a cached one, or a fresh one."""
        if given is not None:
            return np.asarray(given, dtype=np.float32)
        if goal not in self._goal_vecs:
            self._goal_vecs[goal] = self.embed([goal])[0]
            if len(self._goal_vecs) > 4096:
                self._goal_vecs.popitem(last=False)
        return self._goal_vecs[goal]

    def vectors(self, units: Sequence[Unit]) -> tuple[list[np.ndarray], np.ndarray]:
        """Return per-unit block vectors and unit vectors, embedding only what is not stored."""
        missing = [b.text for u in units for b in u.blocks if b.vector is None]
        missing += [f"{u.title}\n{u.text}" if u.title else u.text for u in units if u.vector is None]
        fresh = iter(self.embed(missing))
        blocks = [
            np.stack([b.vector if b.vector is not None else next(fresh) for b in u.blocks])
            if u.blocks
            else np.zeros((0, 384), dtype=np.float32)
            for u in units
        ]
        unit_vecs = [u.vector if u.vector is not None else next(fresh) for u in units]
        return blocks, np.stack(unit_vecs) if unit_vecs else np.zeros((0, 384), dtype=np.float32)

    def head_for(self, unit: Unit) -> str:
        """Return the head name for the blocks of a unit (by the kind of its first block)."""
        kind = unit.blocks[0].kind if unit.blocks else "sentence"
        return self.head_names.get(kind, self.head_names["sentence"])

    # -- core scoring ---------------------------------------------------------------------------
    def block_probabilities(
        self, goal: str, units: Sequence[Unit], goal_vector: np.ndarray | None = None
    ) -> list[np.ndarray]:
        """Return P(block holds evidence for goal) per block of every unit; the units form one candidate set."""
        units = list(units)
        if not units:
            return []
        gvec = self.goal_vector(goal, goal_vector)
        bvecs, uvecs = self.vectors(units)
        x = block_features(goal, gvec, units, bvecs, uvecs)
        names: list[str] = list(BLOCK_FEATURES)
        head = self.head(self.head_for(units[0]))
        if head.meta.get("unit_head"):
            unit_head = self.head(str(head.meta["unit_head"]))
            unit_x = unit_head.select(unit_features(goal, gvec, units, bvecs, uvecs), UNIT_FEATURES)
            x = stack_unit_probabilities(x, unit_head.predict(unit_x), [len(u.blocks) for u in units])
            names += STACKED_FEATURES
        probs = head.predict(head.select(x, names))
        out, k = [], 0
        for u in units:
            p = probs[k : k + len(u.blocks)]
            k += len(u.blocks)
            out.append(p)
            for b, pb in zip(u.blocks, p, strict=True):
                self._remember((head.name, goal, *b.key), float(pb))
        return out

    def unit_probabilities(self, goal: str, units: Sequence[Unit], goal_vector: np.ndarray | None = None) -> np.ndarray:
        """Return P(unit is relevant to goal) for every unit of one candidate set."""
        units = list(units)
        if not units:
            return np.zeros(0)
        gvec = self.goal_vector(goal, goal_vector)
        bvecs, uvecs = self.vectors(units)
        head = self.head(self.head_names["unit"])
        return head.predict(head.select(unit_features(goal, gvec, units, bvecs, uvecs), UNIT_FEATURES))

    def multihop_support(
        self, goal: str, units: Sequence[Unit], goal_vector: np.ndarray | None = None
    ) -> dict[int, list[tuple[int, float]]]:
        """Return {unit index: [(block index, probability)]} for a two-hop question over its candidate paragraphs.

        The heads: `multihop` names the conditional sentence head; its meta names its unit and pair heads.
        """
        units = list(units)
        if not units:
            return {}
        gvec = self.goal_vector(goal, goal_vector)
        bvecs, uvecs = self.vectors(units)
        sentence_head = self.head(self.head_names["multihop"])
        unit_head = self.head(str(sentence_head.meta["unit_head"]))
        pair_head = self.head(str(sentence_head.meta["pair_head"]))
        logit = unit_head.raw(unit_head.select(unit_features(goal, gvec, units, bvecs, uvecs), UNIT_FEATURES))
        pairs, static = pair_features(goal, gvec, units, uvecs)
        x = block_features(goal, gvec, units, bvecs, uvecs)
        _, probs, chosen = select_support(
            pair_head, sentence_head, logit, pairs, static, x, [len(u.blocks) for u in units]
        )
        for u, p in probs.items():
            for block, pb in zip(units[u].blocks, p, strict=True):
                self._remember((sentence_head.name, goal, *block.key), float(pb))
        return {u: [(b, float(probs[u][b])) for b in blocks] for u, blocks in chosen.items()}

    def _remember(self, key: tuple[str, str, str, int, int], p: float) -> None:
        self._memo[key] = p
        if len(self._memo) > 200_000:
            self._memo.popitem(last=False)

    def combine(self, probs: np.ndarray) -> float:
        """Return a region's evidence probability from its blocks'.

        "sum" (default): the expected number of evidence blocks, capped at 1, an upper bound on P(any)
        that read best on the fit split; "noisy_or": 1 - prod(1 - p); "max": the best block.
        """
        if not len(probs):
            return 0.0
        if self.window_rule == "max":
            return float(probs.max())
        if self.window_rule == "noisy_or":
            return float(1.0 - np.prod(1.0 - probs))
        return float(min(1.0, probs.sum()))

    # -- the Judge protocol ---------------------------------------------------------------------
    def noul(self, questions: Sequence[NoulQuestion]) -> list[float]:
        """Return P(true) per question; evidence questions sharing a goal are judged as one candidate set."""
        out = [0.0] * len(questions)
        groups: dict[str, list[int]] = {}
        for i, q in enumerate(questions):
            if q.kind == "continue":
                # P(at least one of the recent candidates was relevant): new relevant documents are
                # likely to keep coming while the recent ones still hold some.
                out[i] = float(1.0 - np.prod(1.0 - np.clip(np.asarray(q.recent, dtype=float), 0, 1)))
            elif q.unit is not None and q.unit.blocks:
                groups.setdefault(q.goal, []).append(i)
        for goal, idx in groups.items():
            units = _unique_units([questions[i].unit for i in idx])
            gvec = next((questions[i].goal_vector for i in idx if questions[i].goal_vector is not None), None)
            probs = dict(zip((id(u) for u in units), self.block_probabilities(goal, units, gvec), strict=True))
            for i in idx:
                q = questions[i]
                p = probs[id(q.unit)]
                out[i] = self.combine(p if q.window is None else p[list(q.window)])
        return out

    def choice(self, questions: Sequence[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Return a distribution over each question's options, proportional to each option's evidence probability."""
        out: list[ChoiceAnswer | None] = [None] * len(questions)
        pending: dict[str, list[int]] = {}
        for i, q in enumerate(questions):
            if all(isinstance(o, Block) for o in q.options.values()) and q.unit is not None:
                head = self.head_for(q.unit)
                keys = [(head, q.goal, *o.key) for o in q.options.values() if isinstance(o, Block)]
                if all(k in self._memo for k in keys):
                    out[i] = ChoiceAnswer.from_probabilities(
                        {label: self._memo[k] for label, k in zip(q.options, keys, strict=True)}
                    )
                    continue
                pending.setdefault(q.goal, []).append(i)
            else:
                out[i] = self._text_choice(q)
        for goal, idx in pending.items():
            units = _unique_units([questions[i].unit for i in idx])
            self.block_probabilities(goal, units, questions[idx[0]].goal_vector)
            for i in idx:
                q = questions[i]
                head = self.head_for(q.unit)  # type: ignore[arg-type]
                out[i] = ChoiceAnswer.from_probabilities(
                    {label: self._memo[(head, goal, *o.key)] for label, o in q.options.items()}
                )  # type: ignore[union-attr]
        return [a for a in out if a is not None]

    def _text_choice(self, q: ChoiceQuestion) -> ChoiceAnswer:
        """Choose among plain-text options by cosine to the goal (a softmax at temperature 0.05)."""
        texts = [o.text if isinstance(o, Block) else o for o in q.options.values()]
        cos = self.embed(texts) @ self.goal_vector(q.goal, q.goal_vector)
        w = np.exp((cos - cos.max()) / 0.05)
        return ChoiceAnswer.from_probabilities(dict(zip(q.options, w / w.sum(), strict=True)))

    def score(self, questions: Sequence[ScoreQuestion]) -> list[ScoreAnswer]:
        """Return a 4-grade distribution per question; questions sharing a goal form one candidate set."""
        out: list[ScoreAnswer | None] = [None] * len(questions)
        groups: dict[str, list[int]] = {}
        for i, q in enumerate(questions):
            if len(q.grades) != 4:
                raise ValueError("the local judge scores on the 4 grades of SPEC 4 only")
            groups.setdefault(q.goal, []).append(i)
        for goal, idx in groups.items():
            units = _unique_units([u for i in idx for u in (questions[i].unit, *questions[i].peers)])
            gvec = next((questions[i].goal_vector for i in idx if questions[i].goal_vector is not None), None)
            probs = dict(zip((id(u) for u in units), self.unit_probabilities(goal, units, gvec), strict=True))
            for i in idx:
                out[i] = ScoreAnswer(grade_distribution(float(probs[id(questions[i].unit)])), questions[i].grades)
        return [a for a in out if a is not None]


def stack_unit_probabilities(x: np.ndarray, unit_p: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """Append STACKED_FEATURES (the unit head's probability and its log rank in the set) to block features."""
    rank = np.empty(len(unit_p))
    rank[np.argsort(-unit_p, kind="stable")] = np.arange(len(unit_p))
    return np.column_stack([x, np.repeat(unit_p, sizes), np.repeat(np.log1p(rank), sizes)])


def _unique_units(units: Sequence[Unit | None]) -> list[Unit]:
    """Return the distinct units (by identity) in first-seen order."""
    seen: dict[int, Unit] = {}
    for u in units:
        if u is not None and id(u) not in seen:
            seen[id(u)] = u
    return list(seen.values())
