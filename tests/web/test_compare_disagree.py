"""Compare says when two runs' exact answers disagree, and which citations support which answer."""

from __future__ import annotations

import pytest

from evidence.views.compare import answer_key

pytestmark = pytest.mark.django_db


def _runs(user, collection, document, run_factory, answers):
    a = run_factory(user, collection, document, system="dual")
    b = run_factory(user, collection, document, question="When does caffeine act?", system="single_pass",
                    quote="Caffeine blocks adenosine receptors.")
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
    assert "supports <span class=\"tag a\">A</span> “About an hour”" in html
    assert "supports <span class=\"tag b\">B</span> “Two hours”" in html


def test_it_says_when_they_agree(logged_in_client, user, collection, document, run_factory):
    a, b = _runs(user, collection, document, run_factory, ["An hour.", "an hour"])
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert 'id="disagreement"' not in html and 'id="agreement"' in html
