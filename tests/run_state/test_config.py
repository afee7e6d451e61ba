"""The typed run configuration: one validation for every caller, plain messages, old rows still readable."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from evidence.run_state import RunConfig, RunOptions, user_config
from evidence.services import runs


def test_defaults_and_what_is_stored():
    config = RunConfig.parse({"searcher": "bm25", "localize": {"size": 3, "adapt_floor": None}})
    assert config.k(10) == 10 and config.answer_spans == 3 and config.block_kind == "sentence"
    assert config.localize.as_kwargs() == {"size": 3, "adapt_floor": None}  # an explicit null turns it off
    assert config.as_stored() == {"searcher": "bm25", "localize": {"size": 3, "adapt_floor": None}}
    assert RunConfig.parse(config.as_stored()) == config


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"top_k": 0}, "config.top_k: Input should be greater than or equal to 1"),
        ({"reader": "multihop"}, "config.reader: Extra inputs are not permitted"),
        ({"searcher": "grep"}, "config.searcher"),
        ({"localize": {"size": "big"}}, "config.localize.size"),
    ],
)
def test_a_bad_configuration_names_the_option(data, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        RunConfig.parse(data)


def test_old_rows_keep_what_still_validates():
    row = SimpleNamespace(config={"reader": "multihop", "quiet_events": True, "top_k": 7, "answer_spans": -1})
    assert RunConfig.of(row).as_stored() == {"top_k": 7}


def test_a_person_can_set_only_their_options():
    assert user_config("hybrid", ["a"], RunOptions(top_k=4)).as_stored() == {
        "searcher": "hybrid", "scope_docids": ["a"], "top_k": 4,
    }  # fmt: skip
    with pytest.raises(ValueError):
        RunOptions.model_validate({"base_url": "http://elsewhere"})


@pytest.mark.django_db
def test_create_run_refuses_a_bad_configuration_about_config(collection, document):
    with pytest.raises(runs.RunRefused) as refused:
        runs.create_run(collection.owner, collection, "q?", system="dual", config={"top_k": "many"})
    assert refused.value.field == "config" and "config.top_k" in str(refused.value)
