"""The pair reader for two-hop questions: bridge features, the pair choice, and the local judge's selection."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest
from conftest import fake_embed, make_unit

from evidence.judge.features import BLOCK_FEATURES, title_key
from evidence.judge.heads import Head
from evidence.judge.local import LocalJudge
from evidence.judge.multihop import (
    PAIR_FEATURES,
    PAIR_STATIC_FEATURES,
    Pairs,
    named_titles,
    pair_features,
    pair_rows,
    select_support,
    shadowed_senses,
)
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


# -- the reading rules, on real HotpotQA questions (../shared/data/hotpotqa) ------------------------------------


@pytest.fixture(scope="module")
def hotpot(shared_data) -> dict[str, dict]:
    """The HotpotQA dev sample's examples by question."""
    examples = json.loads((shared_data / "hotpotqa" / "hotpot-dev-distractor-30.json").read_text(encoding="utf-8"))
    return {e["question"].strip(): e for e in examples}


def hotpot_pairs(example: dict) -> tuple[list[Unit], Pairs]:
    """The question's ten paragraphs as units of their sentences, and their pairs with the reading rules."""
    units = []
    for k, (title, sentences) in enumerate(
        zip(example["context"]["title"], example["context"]["sentences"], strict=True)
    ):
        unit = make_unit(f"p{k}", [s.strip() for s in sentences if s.strip()])
        units.append(Unit(unit.docid, title, unit.blocks))
    question = example["question"]
    pairs, _ = pair_features(question, fake_embed([question])[0], units, fake_embed([u.text for u in units]))
    return units, pairs


def index_of(units: list[Unit], title: str) -> int:
    return next(i for i, u in enumerate(units) if u.title == title)


def test_the_link_is_the_sentence_that_names_the_partner_and_a_supporting_fact(hotpot):
    example = hotpot["The arena where the Lewiston Maineiacs played their home games can seat how many people?"]
    units, pairs = hotpot_pairs(example)
    team, arena = index_of(units, "Lewiston Maineiacs"), index_of(units, "Androscoggin Bank Colisée")
    link = pairs.links[(team, arena)]
    assert units[team].blocks[link].text == "The team played its home games at the Androscoggin Bank Colisée."
    facts = example["supporting_facts"]
    assert ("Lewiston Maineiacs", link) in set(zip(facts["title"], facts["sent_id"], strict=True))
    assert (arena, team) not in pairs.links  # the arena's paragraph does not name the team


def test_a_title_without_its_qualifier_links_and_a_short_or_own_title_does_not(hotpot):
    example = hotpot["2014 S/S is the debut album of a South Korean boy group that was formed by who?"]
    units, pairs = hotpot_pairs(example)
    album, band = index_of(units, "2014 S/S"), index_of(units, "Winner (band)")
    assert pairs.links[(album, band)] == 0  # "... debut album of South Korean group WINNER."
    assert all(len(units[v].title) >= 4 for _, v in pairs.links)


def test_a_comparison_is_two_titles_side_by_side_not_two_titles_anywhere(hotpot):
    units, pairs = hotpot_pairs(hotpot["Which writer was from England, Henry Roth or Robert Erskine Childers?"])
    pair = tuple(sorted((index_of(units, "Henry Roth"), index_of(units, "Robert Erskine Childers"))))
    assert pairs.coordinated == {pair}
    units, pairs = hotpot_pairs(hotpot["Are both Dictyosperma, and Huernia described as a genus?"])
    assert pairs.coordinated == {tuple(sorted((index_of(units, "Dictyosperma"), index_of(units, "Huernia"))))}
    # A bridge question that names both paragraphs, apart: the team "represented Virginia Commonwealth University".
    bridge = next(q for q in hotpot if q.startswith("The 2011–12 VCU Rams men's basketball team"))
    units, pairs = hotpot_pairs(hotpot[bridge])
    team, university = (
        index_of(units, "2011–12 VCU Rams men's basketball team"),
        index_of(units, "Virginia Commonwealth University"),
    )
    assert named_titles(bridge, [title_key(u.title) for u in units]).keys() >= {team, university}
    assert pairs.coordinated == set()


def test_the_question_means_the_sense_it_names(hotpot):
    units, pairs = hotpot_pairs(hotpot["Were Scott Derrickson and Ed Wood of the same nationality?"])
    assert pairs.shadowed == {index_of(units, "Ed Wood (film)")}  # "Ed Wood" is the man; the film is "(film)"
    units, pairs = hotpot_pairs(hotpot["Are Giuseppe Verdi and Ambroise Thomas both Opera composers ?"])
    assert pairs.shadowed == {index_of(units, "Giuseppe Verdi (film)")}
    # "Esma Sultan Mansion" names the mansion: the three princesses "Esma Sultan (daughter of ...)" and the
    # plain "Esma Sultan" are not named, so none of them is set aside.
    units, pairs = hotpot_pairs(
        hotpot["Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?"]
    )
    assert pairs.shadowed == set()


def test_the_film_the_question_names_is_the_qualified_sense():
    units = [titled("a", "Kiss and Tell (1945 film)", ["A film."]), titled("b", "Kiss and Tell", ["A play."])]
    goal = "Who starred in the film Kiss and Tell?"
    assert shadowed_senses(goal, units, [title_key(u.title) for u in units], {0: (0, 0), 1: (0, 0)}) == {1}


def test_select_support_keeps_the_link_skips_a_shadowed_pair_and_reads_a_comparison_one_sentence_each():
    pair_head = logistic("pair", PAIR_FEATURES, [1.0] + [0.0] * (len(PAIR_FEATURES) - 1))  # reads logit_sum
    sentence_head = logistic("sentence", ["cos", "unit_logit"], [1.0, 0.0], threshold=0.55)
    x_blocks = np.zeros((8, len(BLOCK_FEATURES)))
    x_blocks[[0, 1, 2, 3], 0] = [0.4, 0.3, 0.35, 0.25]  # sigmoid: 0.60, 0.57 | 0.59, 0.56 (all >= 0.55)
    logit = np.array([3.0, 2.0, 2.5, -2.0])
    plain = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    static = np.zeros((len(plain), len(PAIR_STATIC_FEATURES)))
    # Without rules: the best pair (0, 2), every sentence over the threshold.
    assert select_support(pair_head, sentence_head, logit, plain, static, x_blocks, [2] * 4)[0] == (0, 2)
    shadowed = Pairs(plain, shadowed={2})
    (i, j), _, chosen = select_support(pair_head, sentence_head, logit, shadowed, static, x_blocks, [2] * 4)
    assert (i, j) == (0, 1) and chosen == {0: [0, 1], 1: [0, 1]}
    compared = Pairs(plain, coordinated={(0, 1)}, shadowed={2})
    _, _, chosen = select_support(pair_head, sentence_head, logit, compared, static, x_blocks, [2] * 4)
    assert chosen == {0: [0], 1: [0]}
    linked = Pairs(plain, links={(1, 0): 1}, coordinated={(0, 1)}, shadowed={2})
    _, _, chosen = select_support(pair_head, sentence_head, logit, linked, static, x_blocks, [2] * 4)
    assert chosen == {0: [0], 1: [0, 1]}
