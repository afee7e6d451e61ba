"""The jev and llm providers against local fake servers: batching, answer parsing, 401/403/max tokens."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import make_unit
from fake_servers import KEY, serve

from evidence.judge.jev import JevJudge, JudgeAuthError, MaxTokensExceeded
from evidence.judge.llm_judge import LLMJudge
from evidence.judge.types import ChoiceQuestion, Judge, NoulQuestion, ScoreQuestion

UNIT = make_unit("doc-1", ["Ancrum is a village.", "It is known as Little Lovely.", "It has a bridge."])


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with serve() as running:
        yield running


def _judges(base: str, key: str | None) -> list[Judge]:
    return [JevJudge(base, key), LLMJudge(base + "/v1", key, model="any-chat-model")]


def test_it_answers_all_three_judgments_in_one_call_each(server: tuple[str, list[dict[str, Any]]]) -> None:
    base, requests = server
    for judge in _judges(base, KEY):
        requests.clear()
        nouls = judge.noul([NoulQuestion("alias of Ancrum", UNIT, (i,)) for i in range(3)])
        assert len(nouls) == 3 and all(0.0 <= p <= 1.0 for p in nouls)
        options = {f"b{i}": b for i, b in enumerate(UNIT.blocks)}
        [choice] = judge.choice([ChoiceQuestion("known as Little Lovely", options, UNIT)])
        assert choice.choice == "b1" and abs(sum(choice.probabilities.values()) - 1) < 1e-9
        [score] = judge.score([ScoreQuestion("Ancrum", UNIT)])
        assert score.probabilities == pytest.approx((0.1, 0.2, 0.3, 0.4)) and score.p_relevant == pytest.approx(0.7)
        assert len(requests) == 3  # one HTTP call per batch


def test_jev_requests_follow_spec_4(server: tuple[str, list[dict[str, Any]]]) -> None:
    base, requests = server
    JevJudge(base, KEY).noul([NoulQuestion("g", UNIT, (0, 1)), NoulQuestion("g", UNIT, (2,))])
    body = requests[-1]["body"]
    assert requests[-1]["path"] == "/v1/systemone" and body["model"] == "jev-latest"
    assert set(body["questions"]) == {"q0", "q1"} and body["questions"]["q0"]["type"] == "noul"
    assert "Little Lovely" in body["state"]  # the unit's text travels once, in the state


@pytest.mark.parametrize(("key", "status"), [(None, 403), ("wrong", 401)])
def test_bad_keys_raise_clear_errors(server: tuple[str, list[dict[str, Any]]], key: str | None, status: int) -> None:
    for judge in _judges(server[0], key):
        with pytest.raises(JudgeAuthError) as info:
            judge.noul([NoulQuestion("g", UNIT)])
        assert info.value.status == status and str(status) in str(info.value)


def test_too_long_requests_raise_max_tokens_exceeded(server: tuple[str, list[dict[str, Any]]]) -> None:
    huge = make_unit("big", ["word " * 70_000])
    with pytest.raises(MaxTokensExceeded):
        JevJudge(server[0], KEY).noul([NoulQuestion("g", huge)])  # refused before sending: over 33k
    with pytest.raises(MaxTokensExceeded):
        LLMJudge(server[0] + "/v1", KEY, "m").noul([NoulQuestion("g", huge)])  # the server's error, mapped


def test_jev_splits_a_batch_over_64k_tokens_into_several_calls(server: tuple[str, list[dict[str, Any]]]) -> None:
    base, requests = server
    units = [make_unit(f"u{i}", ["text " * 20_000]) for i in range(3)]  # ~25k tokens each
    ps = JevJudge(base, KEY).noul([NoulQuestion("g", u) for u in units])
    assert len(ps) == 3 and len(requests) == 2  # 25k + 25k fit one call, the third does not
