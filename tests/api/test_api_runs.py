"""Runs through the API: create (within quota), read, events after a seq, answer, cancel, compare."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evidence.models import Collection, Run, RunEvent
from tests.api.helpers import finished_run

pytestmark = pytest.mark.django_db


def post_run(api, collection, **fields):
    body = {"collection_id": collection.pk, "question": "Does caffeine delay sleep?", "system": "single_pass", **fields}
    return api.post("/api/runs", body, content_type="application/json")


def test_it_creates_and_queues_a_run(api, user, collection, document, queued, settings):
    response = post_run(api, collection, searcher="bm25")
    assert response.status_code == 201, response.content
    body = response.json()
    run = Run.objects.get(pk=body["id"])
    assert run.owner == user and run.status == "queued" and run.config == {"searcher": "bm25"}
    assert run.budget_s == settings.EVIDENCE_RUN_BUDGET_S
    assert queued["runs"] == [run.pk]


def test_a_run_can_be_limited_to_documents_of_its_collection(api, collection, document, queued):
    response = post_run(api, collection, documents=["caffeine", "caffeine"])
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["id"]).config == {"searcher": "hybrid", "scope_docids": ["caffeine"]}


def test_documents_outside_the_collection_are_a_400_that_names_them(api, collection, document, queued):
    response = post_run(api, collection, documents=["caffeine", "nope"])
    assert response.status_code == 400
    assert "nope" in response.json()["detail"] and "caffeine" not in response.json()["detail"]
    assert not Run.objects.exists() and queued["runs"] == []


def test_unstorable_document_ids_are_4xx_not_500(api, collection, document):
    assert post_run(api, collection, documents=["a\x00b"]).status_code == 400  # any NUL byte: evidence.errors
    assert post_run(api, collection, documents=["x" * 201]).status_code == 422


def test_a_run_on_an_empty_collection_is_a_400(api, collection):
    assert post_run(api, collection).status_code == 400


def test_unknown_systems_and_searchers_are_422(api, collection, document):
    assert post_run(api, collection, system="oracle").status_code == 422
    assert post_run(api, collection, searcher="grep").status_code == 422


def test_the_active_run_quota_gives_429_with_a_clear_message(api, collection, document, settings):
    settings.EVIDENCE_MAX_ACTIVE_RUNS_PER_USER = 2
    assert post_run(api, collection).status_code == 201
    assert post_run(api, collection).status_code == 201
    refused = post_run(api, collection)
    assert refused.status_code == 429
    assert "limit is 2" in refused.json()["detail"]
    Run.objects.filter(owner=collection.owner).update(status=Run.Status.ANSWERED)
    assert post_run(api, collection).status_code == 201


def test_the_runs_list_filters_by_a_known_status_and_refuses_any_other(api, collection, document):
    assert post_run(api, collection).status_code == 201
    assert api.get("/api/runs?status=queued").json()["count"] == 1
    assert api.get("/api/runs?status=not_found").json()["count"] == 0
    for bad in ("", "done", "{}"):
        assert api.get(f"/api/runs?status={bad}").status_code == 422, bad


def test_the_daily_run_quota_is_enforced(api, collection, document, settings):
    settings.EVIDENCE_MAX_RUNS_PER_DAY = 1
    assert post_run(api, collection).status_code == 201
    assert post_run(api, collection).status_code == 429


def test_a_queue_that_cannot_be_reached_is_a_503_that_leaves_no_run(api, collection, document, monkeypatch):
    def broken(run_id):
        raise ConnectionError("redis down")

    monkeypatch.setattr("evidence.services.queueing.enqueue_run", broken)
    response = post_run(api, collection)
    assert response.status_code == 503
    assert not Run.objects.exists()
    assert api.get("/api/runs").json()["items"] == []


def test_it_returns_events_after_a_seq(api, user, collection, document):
    run = finished_run(user, collection, document)
    body = api.get(f"/api/runs/{run.pk}/events?after=2").json()
    assert body["finished"] and body["last_seq"] == 4
    assert [e["seq"] for e in body["events"]] == [3, 4]
    assert [e["kind"] for e in body["events"]] == ["answer", "finished"]
    assert [e["seq"] for e in api.get(f"/api/runs/{run.pk}/events?after=0&limit=2").json()["events"]] == [1, 2]


def test_it_returns_the_answer_with_exact_cited_spans(api, user, collection, document):
    run = finished_run(user, collection, document)
    body = api.get(f"/api/runs/{run.pk}/answer").json()
    assert body["exact_answer"] == "yes" and body["status"] == "answered"
    (citation,) = body["citations"]
    span = citation["span"]
    assert document.text[span["start"] : span["end"]] == span["quote"] and span["matches_source"]
    assert citation["marker"] == "[caffeine]"
    assert api.get(f"/api/runs/{run.pk}/spans").json()["count"] == 1


def test_cancelling_a_queued_run_ends_it_with_a_finished_event(api, run):
    response = api.post(f"/api/runs/{run.pk}/cancel")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and run.finished_at is not None
    assert list(RunEvent.objects.filter(run=run).values_list("seq", "kind")) == [(1, "finished")]
    from evidence.services.runs import claim_run

    assert claim_run(run.pk) is None  # the queued task finds nothing to do


def test_cancelling_a_running_run_tells_the_loop(api, run):
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    assert api.post(f"/api/runs/{run.pk}/cancel").json()["status"] == "cancelled"
    from evidence.agent.core import Trajectory
    from evidence.agent.core.recorder import heartbeat

    assert heartbeat(run.pk, Trajectory()) == Run.Status.CANCELLED  # what RunContext.log checks at each step


def test_cancelling_a_finished_run_is_a_conflict(api, user, collection, document):
    run = finished_run(user, collection, document)
    response = api.post(f"/api/runs/{run.pk}/cancel")
    assert response.status_code == 409 and "answered" in response.json()["detail"]


def test_a_run_whose_worker_died_is_reported_failed_not_running(api, run, settings):
    settings.EVIDENCE_RUN_STALE_AFTER_S = 60
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        started_at=timezone.now() - timedelta(hours=1),
        heartbeat_at=timezone.now() - timedelta(minutes=5),
        trajectory={"surfaced": ["caffeine"]},
    )
    body = api.get(f"/api/runs/{run.pk}").json()
    assert body["status"] == "failed" and "heartbeat" in body["error"]
    assert Run.objects.get(pk=run.pk).trajectory == {"surfaced": ["caffeine"]}


def test_it_lists_and_filters_runs(api, user, collection, document, run):
    finished_run(user, collection, document)
    assert api.get("/api/runs").json()["count"] == 2
    assert api.get("/api/runs?status=answered").json()["count"] == 1
    other = Collection.objects.create(owner=user, name="Other")
    assert api.get(f"/api/runs?collection_id={other.pk}").json()["count"] == 0


def test_it_compares_two_runs(api, user, collection, document):
    a = finished_run(user, collection, document)
    b = finished_run(user, collection, document, question="Again?")
    Run.objects.filter(pk=b.pk).update(spent_usd=0.25, calls=3)
    body = api.get(f"/api/compare?a={a.pk}&b={b.pk}").json()
    assert body["shared"] == [{"docid": "caffeine", "start": 0, "end": document.text.index(".") + 1}]
    assert body["only_a"] == body["only_b"] == []
    assert body["difference"]["calls"] == 3 and body["difference"]["spent_usd"] == 0.25
    assert body["a"]["funnel"]["cited"] == 1


def test_huge_ids_are_404_not_database_errors(api):
    assert api.get(f"/api/runs/{2**70}").status_code == 404
    assert api.get(f"/api/documents/{2**70}/text").status_code == 404
    assert api.get("/api/runs/abc").status_code == 422


def test_run_options_are_typed_stored_and_shown(api, collection, document, queued):
    response = post_run(api, collection, options={"top_k": 5, "answer_spans": 2, "judge": "local"})
    assert response.status_code == 201, response.content
    run = Run.objects.get(pk=response.json()["id"])
    assert run.config == {"searcher": "hybrid", "top_k": 5, "answer_spans": 2, "judge": "local"}
    shown = response.json()["config"]  # the effective configuration: what was set, and the defaults
    assert {key: shown[key] for key in run.config} == run.config and shown["block_kind"] == "sentence"


@pytest.mark.parametrize(
    "options", [{"top_k": 0}, {"top_k": 101}, {"judge": "oracle"}, {"base_url": "http://evil"}, {"planner": "llm"}]
)
def test_bad_or_forbidden_run_options_are_422(api, collection, document, options):
    assert post_run(api, collection, options=options).status_code == 422


def test_the_openapi_schema_documents_the_run_configuration(api):
    schema = api.get("/api/openapi.json").json()
    components = schema["components"]["schemas"]
    assert {"top_k", "answer_spans", "judge"} <= set(components["RunOptions"]["properties"])
    assert {"searcher", "scope_docids", "localize", "judge_heads"} <= set(components["RunConfig"]["properties"])
