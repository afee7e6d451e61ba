"""The offline planner's decomposition: sub-questions, lexical queries, clues and query refinement."""

from __future__ import annotations

from evidence.text.question_plan import content_words, key_phrases, make_plan, refine_query, split_sub_questions


def test_it_keeps_content_words_only():
    assert content_words("What is the size of the real-world civil case dataset?") == [
        "size",
        "real-world",
        "civil",
        "case",
        "dataset",
    ]


def test_it_finds_names_acronyms_and_numbers():
    phrases = key_phrases('How does "semi-character" RNN compare with Semantic Scholar on 2,000 papers?')
    assert "semi-character" in phrases and "RNN" in phrases and "Semantic Scholar" in phrases and "2,000" in phrases


def test_it_splits_compound_questions_and_keeps_the_whole_first():
    subs = split_sub_questions("What dataset is used and which metrics are reported?")
    assert subs[0] == "What dataset is used and which metrics are reported?"
    assert "which metrics are reported?" in subs


def test_a_plan_has_queries_clues_and_the_boolean_flag():
    plan = make_plan("Does caffeine reduce total sleep time in adults?")
    assert plan.boolean
    assert plan.queries[0] == "caffeine reduce total sleep time adults"
    assert len(plan.clues) <= 6 and len(plan.sub_questions) <= 6
    assert not make_plan("What is caffeine?").boolean


def test_it_refines_a_query_with_new_evidence_words_once():
    query = refine_query("What blocks adenosine?", ["Caffeine blocks adenosine receptors in neurons."], [])
    assert query is not None and "caffeine" in query and "receptors" in query
    assert refine_query("What blocks adenosine?", ["Caffeine blocks adenosine receptors in neurons."], [query]) is None
    assert refine_query("What blocks adenosine?", [], []) is None
