"""The pair reader for two-hop questions: bridge features, the pair choice, and the local judge's selection."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from conftest import fake_embed, make_unit

from evidence.judge.features import BLOCK_FEATURES
from evidence.judge.heads import Head
from evidence.judge.local import LocalJudge
from evidence.judge.multihop import PAIR_FEATURES, PAIR_STATIC_FEATURES, pair_features, pair_rows, select_support
from evidence.judge.types import Unit


def titled(docid: str, title: str, sentences: list[str]) -> Unit:
    unit = make_unit(docid, sentences)
    return Unit(unit.docid, title, unit.blocks, 1.0, None)


GOAL = "Which country was the director of the film Blue Lake born in?"
UNITS = [
    titled("film", "Blue Lake (film)", ["Blue Lake is a 1990 drama film.", "It was directed by Anna Berg."]),
    titled("person", "Anna Berg", ["Anna Berg is a film director.", "She was born in Norway in 1951."]),
    titled("lake", "Blue Lake", ["Blue Lake is a lake in Oregon.", "It is fed by snowmelt."]),
    titled("other", "Red River", ["Red River is a river.", "It flows east."]),
]


def static_row(pairs: list[tuple[int, int]], static: np.ndarray, i: int, j: int) -> dict[str, float]:
    return dict(zip(PAIR_STATIC_FEATURES, static[pairs.index((i, j))], strict=True))


def test_pair_features_see_the_bridge_and_near_duplicate_titles():
    vecs = fake_embed([u.text for u in UNITS])
    pairs, static = pair_features(GOAL, fake_embed([GOAL])[0], UNITS, vecs)
    assert len(pairs) == 6 and static.shape == (6, len(PAIR_STATIC_FEATURES))
    bridge = static_row(pairs, static, 0, 1)  # the film paragraph names the director
    assert bridge["bridge_any"] == 1.0
    assert static_row(pairs, static, 0, 3)["bridge_any"] == 0.0
    assert static_row(pairs, static, 0, 2)["same_key"] == 1.0  # "Blue Lake (film)" and "Blue Lake"
    assert static_row(pairs, static, 0, 1)["same_key"] == 0.0


def test_pair_rows_prepend_the_logit_sum_and_minimum():
    rows = pair_rows(np.array([2.0, -1.0, 0.5]), [(0, 1), (1, 2)], np.zeros((2, len(PAIR_STATIC_FEATURES))))
    assert rows.shape == (2, len(PAIR_FEATURES))
    assert rows[0, :2].tolist() == [1.0, -1.0] and rows[1, :2].tolist() == [-0.5, -1.0]


def logistic(name: str, features: Sequence[str], coef: Sequence[float], threshold: float | None = None) -> Head:
    meta = {} if threshold is None else {"threshold": threshold}
    n = len(features)
    return Head(name, list(features), "logistic", [0.0] * n, [1.0] * n, list(coef), 0.0, (1.0, 0.0), meta=meta)


def test_select_support_takes_the_most_probable_pair_and_the_best_sentence_of_each():
    pair_head = logistic("pair", PAIR_FEATURES, [1.0] + [0.0] * (len(PAIR_FEATURES) - 1))  # reads logit_sum
    # The sentence head reads its paragraph's logit plus the first block feature (cos), a tie-breaker.
    sentence_head = logistic("sentence", ["cos", "unit_logit"], [1.0, 1.0], threshold=0.99)
    x_blocks = np.zeros((8, len(BLOCK_FEATURES)))
    x_blocks[[1, 2], 0] = 0.5  # the second sentence of paragraph 0, the first of paragraph 1
    logit = np.array([3.0, 2.0, -1.0, -2.0])
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    static = np.zeros((len(pairs), len(PAIR_STATIC_FEATURES)))
    (i, j), probs, chosen = select_support(pair_head, sentence_head, logit, pairs, static, x_blocks, [2, 2, 2, 2])
    assert (i, j) == (0, 1)
    assert chosen == {0: [1], 1: [0]}
    assert set(probs) == {0, 1} and all(len(p) == 2 for p in probs.values())


def test_a_single_paragraph_is_its_own_pair():
    pair_head = logistic("pair", PAIR_FEATURES, [1.0] + [0.0] * (len(PAIR_FEATURES) - 1))
    sentence_head = logistic("sentence", ["unit_logit"], [1.0], threshold=0.5)
    no_pairs = np.zeros((0, len(PAIR_STATIC_FEATURES)))
    pair, _, chosen = select_support(
        pair_head, sentence_head, np.array([1.0]), [], no_pairs, np.zeros((3, len(BLOCK_FEATURES))), [3]
    )
    assert pair == (0, 0) and chosen == {0: [0, 1, 2]}


def test_the_local_judge_returns_sentences_of_two_paragraphs_with_probabilities():
    judge = LocalJudge(embed=fake_embed)
    chosen = judge.multihop_support(GOAL, UNITS)
    assert 1 <= len(chosen) <= 2
    for u, picks in chosen.items():
        assert picks and all(0 <= b < len(UNITS[u].blocks) and 0.0 <= p <= 1.0 for b, p in picks)
