"""Compare says when two runs' exact answers disagree, and which citations support which answer."""

from __future__ import annotations

import pytest

from evidence.views.compare import Verdict, answer_key, span_support, states

pytestmark = pytest.mark.django_db


def _runs(user, collection, document, run_factory, answers):
    a = run_factory(user, collection, document, system="dual")
    b = run_factory(
        user,
        collection,
        document,
        question="When does caffeine act?",
        system="single_pass",
        quote="Caffeine blocks adenosine receptors.",
    )
    for run, exact in zip((a, b), answers, strict=True):
        run.answer = {**run.answer, "exact_answer": exact}
        run.save(update_fields=["answer"])
    return a, b


def test_it_normalises_answers_as_qa_scoring_does():
    assert answer_key("The Graph.") == answer_key("graph") != answer_key("graphs")


def test_it_flags_disagreeing_exact_answers(logged_in_client, user, collection, document, run_factory):
    a, b = _runs(user, collection, document, run_factory, ["About an hour", "Two hours"])
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert 'id="disagreement"' in html and "The two runs disagree" in html
    assert "answers <strong>About an hour</strong>" in html and "answers <strong>Two hours</strong>" in html
    assert 'states <span class="tag a">A</span>’s answer “About an hour”' in html
    assert "states neither “About an hour” nor “Two hours”" in html, "B's span does not say “two hours”"
    assert 'id="differences"' in html and "They answer different questions" in html


def test_it_says_when_they_agree(logged_in_client, user, collection, document, run_factory):
    a, b = _runs(user, collection, document, run_factory, ["An hour.", "an hour"])
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert 'id="disagreement"' not in html and 'id="agreement"' in html


def test_a_span_supports_what_its_own_words_state():
    answers = Verdict("1", "8.1M")
    assert span_support("full text for 8.1M papers", answers) == "b", "“1” is not a word of “8.1M”"
    assert span_support("The graph has 1 root and 8.1M papers", answers) == "both"
    assert span_support("We parsed the PDFs.", answers) == "neither"
    assert span_support("It lasts about an hour.", Verdict("An hour", "")) == "a"
    assert span_support("It lasts about an hour.", Verdict("an hour", "An hour.")) == "a", "the same answer"
    assert states("The Semantic Scholar corpus", "semantic scholar") and not states("scholarly", "scholar")


def test_runs_on_the_same_question_and_collection_show_no_differences(
    logged_in_client, user, collection, document, run_factory
):
    a = run_factory(user, collection, document, system="dual")
    b = run_factory(user, collection, document, system="single_pass")
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert 'id="differences"' not in html
    b.config = {**b.config, "scope_docids": [document.docid]}
    b.save(update_fields=["config"])
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert "They were limited to different documents" in html
