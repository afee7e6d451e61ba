"""Evaluation pages: list, summary with funnel and per-question runs, paired comparison; owner isolation."""

from __future__ import annotations

import pytest

from evidence.models import Evaluation, EvaluationItem, Run

pytestmark = pytest.mark.django_db


def make_evaluation(owner, collection, system: str, scores: list[float]) -> Evaluation:
    evaluation = Evaluation.objects.create(
        owner=owner,
        benchmark="qasper",
        system=system,
        collection=collection,
        key=f"k-{system}",
        status=Evaluation.Status.DONE,
        summary={
            "questions": len(scores),
            "answer_f1": sum(scores) / len(scores),
            "evidence_f1": 0.3,
            "funnel": {"surfaced": 1.0, "inspected": 0.8, "delivered": 0.5, "cited": 0.5},
            "failure_stages": {"evidence never retrieved": 1},
        },
    )
    for i, score in enumerate(scores):
        run = Run.objects.create(owner=owner, collection=collection, question=f"q{i} <b>bold</b>", system=system)
        EvaluationItem.objects.create(
            evaluation=evaluation,
            qid=f"q{i}",
            run=run,
            metrics={
                "answer_f1": score,
                "evidence_f1": 0.3,
                "latency_s": 0.1,
                "calls": 0,
                "cost_usd": 0.0,
                "status": "answered",
                "failure_stage": None if score > 0.5 else "cited but answer wrong",
            },
        )
    return evaluation


def test_it_lists_the_users_evaluations(logged_in_client, user, collection):
    evaluation = make_evaluation(user, collection, "dual", [0.2, 0.6])
    response = logged_in_client.get("/evaluations/")
    assert response.status_code == 200
    assert f'href="/evaluations/{evaluation.pk}/"' in response.content.decode()


def test_it_shows_a_summary_funnel_and_links_to_each_run(logged_in_client, user, collection):
    evaluation = make_evaluation(user, collection, "dual", [0.2, 0.6])
    html = logged_in_client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    assert "Recall funnel" in html and "<svg" in html
    for item in evaluation.items.all():
        assert f'href="/runs/{item.run_id}/"' in html
    assert "cited but answer wrong" in html


def test_it_compares_two_evaluations_with_intervals(logged_in_client, user, collection):
    a = make_evaluation(user, collection, "single_pass", [0.1, 0.2, 0.3])
    b = make_evaluation(user, collection, "dual", [0.3, 0.4, 0.5])
    html = logged_in_client.get(f"/evaluations/compare?a={a.pk}&b={b.pk}").content.decode()
    assert "95% bootstrap interval" in html and "answer_f1" in html and "<svg" in html
    assert "0.2000" in html  # the mean difference B - A


@pytest.mark.parametrize("path", ["/evaluations/{pk}/", "/evaluations/compare?a={pk}&b={pk}"])
def test_another_users_evaluation_is_a_404(client, other_user, user, collection, path):
    evaluation = make_evaluation(user, collection, "dual", [0.5])
    client.force_login(other_user)
    assert client.get(path.format(pk=evaluation.pk)).status_code == 404
    assert "No evaluations yet" in client.get("/evaluations/").content.decode()
