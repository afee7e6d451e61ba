"""Two-hop questions: choose the pair of paragraphs first, then the supporting sentences in each.

The supporting paragraphs of a bridge question rarely both look like the question: the second is found
through the first ("the film's director" names a person whose paragraph holds the answer). So System 1
scores every pair of candidate paragraphs with the unit head's logits plus bridge cues (one paragraph's
title written in the other, the question's terms and entities the two cover together), takes the most
probable pair, and reads each paragraph's sentences with a head that knows its partner's logit. Per
paragraph it keeps the best sentence plus any whose probability reaches the head's threshold (chosen
on out-of-fold fit predictions). All pure numpy over stored vectors.

Three reading rules from how such questions are written, none fitted (`Pairs`, read by select_support):
- the link: the first sentence of a paragraph that names its partner's title is kept. It is the bridge the
  question crosses ("It was sung by Jim Cummings"), a supporting fact however little it looks like the question;
- a comparison ("A or B", "A and B": the question names both titles side by side) asks one thing of each, so
  each paragraph keeps its best sentence (and its link) only;
- a title the question names in another sense is not a candidate: with "Ed Wood" and "Ed Wood (film)" both
  found, a question that says "Ed Wood" and not "film" means the first (Wikipedia's names: the qualifier
  marks the other sense); "the film Kiss and Tell" means "Kiss and Tell (1945 film)".
"""

from __future__ import annotations

import html
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..text import terms
from .features import BLOCK_FEATURES, entities, title_key
from .heads import Head
from .types import Unit

PAIR_STATIC_FEATURES: tuple[str, ...] = (
    "bridge_any",  # one paragraph's title key appears in the other's text
    "bridge_both",  # each title appears in the other's text
    "title_share_max",  # best share of one title's terms found in the other paragraph
    "both_in_goal",  # both title keys appear in the goal (comparison questions)
    "any_in_goal",
    "same_key",  # the title keys are equal or nested ("Ed Wood" / "Ed Wood (film)"): rarely a gold pair
    "union_cov",  # idf share of goal terms covered by the two paragraphs together
    "cov_gain",  # union coverage minus the better single paragraph's
    "union_ent",  # share of goal entities found in either paragraph or title
    "ent_jacc",  # Jaccard of the two paragraphs' entities
    "cos_union",  # goal cosine with the normalised sum of the two unit vectors
)
PAIR_FEATURES: tuple[str, ...] = ("logit_sum", "logit_min", *PAIR_STATIC_FEATURES)
# Conditional sentence head: block features plus the raw unit logit of its paragraph and of the partner.
CONDITIONAL_FEATURES: tuple[str, ...] = ("unit_logit", "partner_logit")
MIN_KEY = 4  # characters: a shorter title ("Up", "Boo") names too much text to mean a link
WORD = re.compile(r"\w+")
QUALIFIER = re.compile(r"\(([^)]*)\)\s*$")  # "Ed Wood (film)" -> "film"


class Pairs(list[tuple[int, int]]):
    """The candidate pairs (i < j) with what the question and the texts say about them (the reading rules).

    links: (u, v) -> the first block of u that names v's title; coordinated: the pairs the question names side
    by side (a comparison); shadowed: candidates the question names in another sense.
    """

    def __init__(
        self,
        pairs: Iterable[tuple[int, int]] = (),
        links: Mapping[tuple[int, int], int] | None = None,
        coordinated: Iterable[tuple[int, int]] = (),
        shadowed: Iterable[int] = (),
    ) -> None:
        super().__init__(pairs)
        self.links = dict(links or {})
        self.coordinated = frozenset(coordinated)
        self.shadowed = frozenset(shadowed)


def _plain(text: str) -> str:
    """Lower-cased words between single spaces, padded so that `in` and `find` match whole words."""
    return " " + " ".join(WORD.findall(html.unescape(text).lower())) + " "


def named_titles(goal: str, keys: Sequence[str]) -> dict[int, tuple[int, int]]:
    """Return where the question names each title key (offsets in its plain text), for the keys it names.

    A key named only inside a longer key named there is not named: "Esma Sultan Mansion" names the mansion,
    not "Esma Sultan".
    """
    plain_goal = _plain(goal)
    found: dict[int, list[tuple[int, int]]] = {}
    for u, key in enumerate(keys):
        k = _plain(key)
        if len(key) < MIN_KEY or not k.strip():
            continue
        at = plain_goal.find(k)
        while at >= 0:
            found.setdefault(u, []).append((at, at + len(k)))
            at = plain_goal.find(k, at + 1)
    spans = [(s, e) for places in found.values() for s, e in places]
    named = {}
    for u, places in found.items():
        free = [(s, e) for s, e in places if not any(a <= s and e <= b and b - a > e - s for a, b in spans)]
        if free:
            named[u] = free[0]
    return named


def coordinated(goal: str, named: Mapping[int, tuple[int, int]], i: int, j: int) -> bool:
    """Whether the question names both titles side by side: "A or B", "A and B", "A, B" (a comparison)."""
    if i not in named or j not in named:
        return False
    (_, first_end), (second_start, _) = sorted([named[i], named[j]])
    between = _plain(goal)[first_end:second_start].split() if first_end <= second_start else []
    return between in ([], ["and"], ["or"])


def shadowed_senses(goal: str, units: Sequence[Unit], keys: Sequence[str], named: Mapping[int, object]) -> set[int]:
    """Return the candidates whose title the question names but in another sense than it means.

    Among candidates sharing a named title key, the question means the one whose qualifier it states ("the film
    Kiss and Tell": "Kiss and Tell (1945 film)"), else the unqualified title, the name's primary sense.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for u in named:
        groups[keys[u]].append(u)
    asked = set(terms(goal))
    out: set[int] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        qualifiers = {}
        for u in members:
            found = QUALIFIER.search(html.unescape(units[u].title))
            qualifiers[u] = set(terms(found.group(1))) if found else set()
        stated = [u for u in members if qualifiers[u] & asked]
        meant = stated or [u for u in members if not qualifiers[u]]
        if meant:
            out |= set(members) - set(meant)
    return out


def links(units: Sequence[Unit], keys: Sequence[str]) -> dict[tuple[int, int], int]:
    """Return (u, v) -> the index of the first block of u that names v's title key, for every such pair."""
    blocks = [[_plain(b.text) for b in u.blocks] for u in units]
    plain_keys = [_plain(k) if len(k) >= MIN_KEY else "" for k in keys]
    out = {}
    for u, v in itertools.permutations(range(len(units)), 2):
        if plain_keys[v].strip() and keys[v] != keys[u]:
            first = next((b for b, text in enumerate(blocks[u]) if plain_keys[v] in text), None)
            if first is not None:
                out[(u, v)] = first
    return out


def pair_features(
    goal: str, goal_vec: np.ndarray, units: Sequence[Unit], unit_vecs: np.ndarray
) -> tuple[Pairs, np.ndarray]:
    """Return every unordered unit pair (i < j) with its reading rules, and its PAIR_STATIC_FEATURES matrix."""
    n = len(units)
    low_goal = goal.lower()
    gset = set(terms(goal))
    texts = [html.unescape(u.text) for u in units]
    lows = [t.lower() for t in texts]
    keys = [title_key(html.unescape(u.title)) for u in units]
    tterms = [set(terms(html.unescape(u.title))) for u in units]
    toks = [set(terms(html.unescape(u.title) + " " + t)) for u, t in zip(units, texts, strict=True)]
    df = Counter(t for tk in toks for t in tk & gset)
    idf = {t: math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in gset}
    total = sum(idf.values()) or 1.0
    cov = [sum(idf[t] for t in tk & gset) / total for tk in toks]
    gents = entities(goal)
    ents = [entities(t) for t in texts]
    in_goal = [float(bool(k) and k in low_goal) for k in keys]
    norms = np.linalg.norm(unit_vecs, axis=1, keepdims=True) if n else np.ones((0, 1))
    uv = unit_vecs / np.where(norms > 1e-9, norms, 1.0)
    pairs, rows = [], []
    for i, j in itertools.combinations(range(n), 2):
        b_ij = float(bool(keys[j]) and keys[j] in lows[i])
        b_ji = float(bool(keys[i]) and keys[i] in lows[j])
        share = max(
            len(tterms[j] & toks[i]) / max(len(tterms[j]), 1), len(tterms[i] & toks[j]) / max(len(tterms[i]), 1)
        )
        same = float(keys[i] == keys[j] or bool(keys[i] and keys[i] in keys[j]) or bool(keys[j] and keys[j] in keys[i]))
        ucov = sum(idf[t] for t in (toks[i] | toks[j]) & gset) / total
        both = f"{lows[i]} {lows[j]} {keys[i]} {keys[j]}"
        uent = sum(1 for e in gents if e in both) / len(gents) if gents else 0.0
        jac = len(ents[i] & ents[j]) / max(len(ents[i] | ents[j]), 1)
        v = uv[i] + uv[j]
        cu = float(v @ goal_vec / max(float(np.linalg.norm(v)), 1e-9))
        pairs.append((i, j))
        rows.append(
            [
                max(b_ij, b_ji),
                min(b_ij, b_ji),
                share,
                in_goal[i] * in_goal[j],
                max(in_goal[i], in_goal[j]),
                same,
                ucov,
                ucov - max(cov[i], cov[j]),
                uent,
                jac,
                cu,
            ]
        )
    named = named_titles(goal, keys)
    rules = Pairs(
        pairs,
        links(units, keys),
        [(i, j) for i, j in pairs if coordinated(goal, named, i, j)],
        shadowed_senses(goal, units, keys, named),
    )
    return rules, np.asarray(rows, dtype=float).reshape(len(pairs), len(PAIR_STATIC_FEATURES))


def pair_rows(unit_logit: np.ndarray, pairs: Sequence[tuple[int, int]], static: np.ndarray) -> np.ndarray:
    """Prepend the pair's unit-logit sum and minimum to its static features (PAIR_FEATURES order)."""
    li = np.array([unit_logit[i] for i, _ in pairs], dtype=float)
    lj = np.array([unit_logit[j] for _, j in pairs], dtype=float)
    return np.column_stack([li + lj, np.minimum(li, lj), static])


def conditional_rows(x_unit_blocks: np.ndarray, unit_logit: float, partner_logit: float) -> np.ndarray:
    """Append CONDITIONAL_FEATURES to one unit's block rows (MULTIHOP_FEATURES columns)."""
    n = len(x_unit_blocks)
    return np.column_stack([x_unit_blocks, np.full(n, unit_logit), np.full(n, partner_logit)])


def select_support(
    pair_head: Head,
    sent_head: Head,
    unit_logit: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    static: np.ndarray,
    x_blocks: np.ndarray,
    sizes: Sequence[int],
) -> tuple[tuple[int, int], dict[int, np.ndarray], dict[int, list[int]]]:
    """Choose the most probable paragraph pair, then per paragraph its best block plus any >= the head's threshold.

    x_blocks: BLOCK_FEATURES of every block of every unit, in order (block_features). Returns the
    pair, conditional block probabilities per chosen unit and the chosen block indices per chosen unit.
    `pairs` as pair_features gives them (Pairs) brings the reading rules: no shadowed candidate, each
    paragraph's link kept, a comparison's paragraphs one sentence each.
    """
    rules = pairs if isinstance(pairs, Pairs) else Pairs(pairs)
    if not pairs:  # one unit: it is the pair
        pairs, static = [(0, 0)], np.zeros((1, len(PAIR_STATIC_FEATURES)))
    pair_p = pair_head.predict(pair_head.select(pair_rows(unit_logit, pairs, static), PAIR_FEATURES))
    meant = np.array([not {a, b} & rules.shadowed for a, b in pairs])
    if meant.any():
        pair_p = np.where(meant, pair_p, -np.inf)
    i, j = pairs[int(np.argmax(pair_p))]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    t = float(sent_head.meta.get("threshold", 0.4))
    names = [*BLOCK_FEATURES, *CONDITIONAL_FEATURES]
    probs, chosen = {}, {}
    for u, partner in dict.fromkeys(((i, j), (j, i))):
        x = conditional_rows(x_blocks[starts[u] : starts[u + 1]], unit_logit[u], unit_logit[partner])
        p = sent_head.predict(sent_head.select(x, names))
        probs[u] = p
        keep = {int(np.argmax(p))} if len(p) else set()
        if (i, j) not in rules.coordinated:
            keep |= set(np.flatnonzero(p >= t).tolist())
        if (u, partner) in rules.links:
            keep.add(rules.links[(u, partner)])
        chosen[u] = sorted(keep)
    return (i, j), probs, chosen
