"""An evaluation's settings, typed: stored rows read back to the same JSON, so evaluation keys (resumption) hold."""

from __future__ import annotations

from evidence.eval.settings import AnswerJudge, EvaluationSettings
from evidence.services.evaluation_runner import evaluation_key

# What `manage.py evaluate` has written on Evaluation.config (with and without the optional settings).
STORED = [
    {"searcher": "hybrid", "quiet_events": True},
    {"searcher": "bm25", "quiet_events": True, "budget_s": 60.0, "offset": 647},
    {
        "searcher": "hybrid+dense",
        "quiet_events": True,
        "answer_judge": {"model": "gpt-x", "base_url": None, "replay_of_evaluation": 12},
    },
]


def test_stored_settings_read_back_to_the_same_json_and_the_same_evaluation_key():
    for stored in STORED:
        settings = EvaluationSettings.of(stored)
        assert settings.as_stored() == stored
        key = evaluation_key("papers", "c", "dual", stored)
        assert evaluation_key("papers", "c", "dual", settings.as_stored()) == key


def test_the_typed_fields_say_what_the_json_held():
    settings = EvaluationSettings.of(STORED[2])
    assert settings.run == {"searcher": "hybrid+dense"} and settings.quiet_events
    assert settings.answer_judge == AnswerJudge("gpt-x", None, 12)
    assert EvaluationSettings.of(STORED[1]).budget_s == 60.0 and EvaluationSettings.of(STORED[1]).offset == 647
    assert EvaluationSettings.of(None) == EvaluationSettings(run={})
    assert EvaluationSettings.of({"answer_judge": {"base_url": "x"}}).answer_judge is None  # no model: no judge
