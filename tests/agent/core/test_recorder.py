"""The recorder writes the recall funnel, each stage from what it records: the tools' results, readings and
judgments, delivered spans, a reviewed answer and the final one; each stage keeps its first-reached order."""

from __future__ import annotations

import pytest

from evidence.agent.core import Answer, RunRecorder
from evidence.judge.localize import EvidenceSpan
from evidence.judge.types import Block, Unit
from evidence.models import Run
from evidence.services.runs import claim_run

pytestmark = pytest.mark.django_db


def span(docid: str, start: int = 0, quote: str = "quote") -> EvidenceSpan:
    return EvidenceSpan(docid, start, start + len(quote), quote, None, 0.9, 1.0, "goal", "sentence")


def unit(docid: str) -> Unit:
    return Unit(docid, docid.title(), (Block(docid, 0, 5, "words"),))


@pytest.fixture
def recorded(library):
    run = Run.objects.create(owner=library.owner, collection=library, question="caffeine?", system="dual")
    claim_run(run.pk)
    run.refresh_from_db()
    kinds: list[str] = []
    return RunRecorder(run, lambda run_id, kind, payload: kinds.append(kind)), kinds


def test_each_stage_is_derived_from_what_the_recorder_records(recorded):
    recorder, kinds = recorded
    recorder.event("search", {}, {"ranked": ["diet", "caffeine", "walking"], "docids": ["diet", "caffeine"]})
    recorder.event("read_search_results", {}, {"docids": ["walking", "diet"]})
    recorder.event("read_document", {"docid": "caffeine"}, {"docid": "caffeine"})
    recorder.event("reading", {"docids": ["caffeine", "walking"]})
    recorder.judgments("goal", [unit("diet"), unit("nowhere")], {"diet": 0.2}, [], provider="local")
    assert recorder.deliver([span("caffeine"), span("caffeine", 10), span("diet")]) == recorder.delivered
    assert recorder.deliver([span("diet"), span("caffeine", 10)]) == []  # each span is delivered once
    recorder.event("review", {"round": 1, "supported": False, "confidence": 0.3, "cited": ["diet"]})
    assert recorder.trajectory.as_dict() == {
        "surfaced": ["diet", "caffeine", "walking"],
        "previewed": ["diet", "caffeine", "walking"],
        "opened": ["caffeine"],
        "inspected": ["caffeine", "walking", "diet", "nowhere"],  # a judged unit of no stored document included
        "delivered": ["caffeine", "diet"],
        "cited": ["diet"],
    }
    events = ["search", "read_search_results", "read_document", "reading", "judgment", "evidence", "evidence"]
    assert kinds == [*events, "evidence", "review"]


def test_the_final_answers_citations_are_cited_and_the_funnel_is_saved_with_the_end(recorded, library):
    recorder, _ = recorded
    texts = dict(library.documents.values_list("docid", "text"))
    walking, caffeine = (span(docid, 0, texts[docid][:5]) for docid in ("walking", "caffeine"))
    recorder.deliver([walking, caffeine])
    recorder.event("review", {"round": 1, "supported": False, "confidence": 0.3, "cited": ["walking"]})
    answer = Answer("Sleep [caffeine]. Walking [walking].", "an hour", 0.8, [(0, caffeine), (1, walking)])
    run = recorder.finish(Run.Status.ANSWERED, answer)
    run.refresh_from_db()
    assert run.trajectory["cited"] == ["walking", "caffeine"]  # the reviewed answer's first, then the final one's
    assert run.trajectory["delivered"] == ["walking", "caffeine"]
    assert [c.span.document.docid for c in run.citations.order_by("answer_part")] == ["caffeine", "walking"]
