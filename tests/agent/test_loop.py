"""The research loop: every system ends in exactly one status, with spans that round-trip and cited ids delivered."""

from __future__ import annotations

import pytest

from evidence.agent import research as loop
from evidence.models import Run, RunEvent
from evidence.services.runs import execute_run, reap_stale_runs
from tests.agent.runs import PAPER_MD, assert_consistent, make_run
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("system", ["single_pass", "review_loop", "pi_serini", "dual"])
def test_each_offline_system_answers_with_delivered_citations(library, system):
    run = make_run(library, system)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert run.citations.exists()
    assert "caffeine" in run.answer["explanation"].lower()
    assert set(run.trajectory["cited"]) <= set(run.trajectory["delivered"]) <= set(run.trajectory["surfaced"])
    assert_consistent(run)


def test_a_run_scoped_to_one_paper_reads_its_paragraphs_by_section(library):
    ingest_now(library, [("paper.md", PAPER_MD)])
    paper = library.documents.get(title="Robust sentiment models")
    run = make_run(library, question="What dataset do they use?", config={"scope_docids": [paper.docid]})
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    cited = [c.span for c in run.citations.all()]
    assert cited and all(span.document_id == paper.pk for span in cited)
    assert "TripAdvisor" in cited[0].quote
    signals = run.answer["signals"]
    named = [signals["candidate"], *(a["text"] for a in signals["alternatives"][:1])]
    assert any("TripAdvisor" in text or "hotel reviews" in text for text in named), signals
    assert RunEvent.objects.filter(run=run, kind="paper_reading").exists()
    assert_consistent(run)


BRIDGE = {
    "film.md": b"# Kiss and Tell (1945 film)\n\nKiss and Tell is a 1945 comedy film in which Corliss Archer is "
    b"played by Shirley Temple.\n",
    "temple.md": b"# Shirley Temple\n\nShirley Temple was an actress who later served as United States "
    b"Ambassador to Ghana.\n",
}


def test_two_linked_short_paragraphs_are_read_as_a_pair_without_any_flag(library):
    ingest_now(library, BRIDGE.items())
    question = "What government position was held by the woman who played Corliss Archer in Kiss and Tell?"
    scope = list(library.documents.values_list("docid", flat=True))  # the documents the user picked
    run = make_run(library, question=question, config={"scope_docids": scope})
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    cited = {c.span.document.docid for c in run.citations.all()}
    assert 1 <= len(cited) <= 2
    event = RunEvent.objects.get(run=run, kind="paragraph_pair")
    assert set(event.payload["docids"]) == cited
    assert RunEvent.objects.get(run=run, kind="reader").payload["reader"] == "pairs"
    assert_consistent(run)


def test_unlinked_paragraphs_are_not_read_as_a_pair(library):
    run = make_run(library)  # the caffeine question: no candidate names another
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert not RunEvent.objects.filter(run=run, kind="paragraph_pair").exists()


def test_the_pair_shape_is_two_candidates_naming_one_another_or_both_named_in_the_question():
    from evidence.agent.readers.pairs import linked
    from evidence.judge.types import Block, Unit

    def unit(title, text):
        return Unit(title, title, (Block(title, 0, len(text), text),))

    film = unit("Kiss and Tell (1945 film)", "Corliss Archer is played by Shirley Temple.")
    temple = unit("Shirley Temple", "She was Ambassador to Ghana.")
    other = unit("Walking and memory", "Walking increased hippocampal volume.")
    assert linked("Who played Corliss Archer?", [film, temple, other])  # a bridge: the film names the actress
    assert not linked("Who played Corliss Archer?", [film, other])
    assert linked("Is Walking and memory older than Shirley Temple?", [temple, other])  # a comparison


def test_a_question_with_nothing_to_find_ends_not_found(library):
    run = make_run(library, "dual", question="Zyxwv qwertyuiop?")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.NOT_FOUND
    assert run.answer["exact_answer"] == "Unanswerable" and run.answer["not_found"] is True


def test_a_repeated_task_is_a_no_op(library):
    run = make_run(library, "single_pass")
    assert execute_run(run.pk) is not None
    assert execute_run(run.pk) is None
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


def test_a_retry_takes_back_the_run_its_first_try_stranded_but_never_a_live_one(library, settings):
    from datetime import timedelta

    from django.utils import timezone

    settings.EVIDENCE_RUN_STALE_AFTER_S = 60
    run = make_run(library, "single_pass", status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=10))
    assert execute_run(run.pk, retry=True) is None  # beating recently: another worker's live run
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=40))
    assert execute_run(run.pk) is None  # a plain redelivery never takes a running run
    assert execute_run(run.pk, retry=True) is not None  # silent past half the window: the retry's own
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


def test_a_retry_that_finds_its_run_still_warm_is_told_when_to_come_back(library, settings):
    from datetime import timedelta

    from django.utils import timezone

    from evidence.services.runs import reclaimable_in_s

    settings.EVIDENCE_RUN_STALE_AFTER_S = 60
    run = make_run(library, "single_pass")
    assert reclaimable_in_s(run.pk) is None  # queued: a retry claims it at once
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, heartbeat_at=timezone.now() - timedelta(seconds=10))
    wait = reclaimable_in_s(run.pk)
    assert wait is not None and 19 <= wait <= 22  # half the window (30 s) less the 10 s of silence, plus a second
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31 + wait))
    assert execute_run(run.pk, retry=True) is not None  # by then the retry takes it back


def test_an_unknown_system_fails_with_its_error(library):
    run = make_run(library, "oracle")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "unknown system 'oracle'" in run.error


def test_a_lost_worker_leaves_the_run_failed_with_its_trajectory(library):
    run = make_run(library, "dual")
    trajectory = {
        "surfaced": ["caffeine"],
        "previewed": ["caffeine"],
        "opened": [],
        "inspected": [],
        "delivered": [],
        "cited": [],
    }
    from datetime import timedelta

    from django.utils import timezone

    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        trajectory=trajectory,
        started_at=timezone.now() - timedelta(minutes=10),
        heartbeat_at=timezone.now() - timedelta(minutes=9),
    )
    assert reap_stale_runs() == [run.pk]
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "heartbeat" in run.error
    assert run.trajectory["surfaced"] == ["caffeine"]


def test_a_run_reaped_while_its_last_step_ran_keeps_the_reapers_end(library, monkeypatch):
    """The reaper's 'failed' is the run's one end: the run's own finish later keeps it and its finds."""
    from dataclasses import replace

    dual = loop.SYSTEMS["dual"]

    def reaped_midway(ctx):
        outcome = dual.run(ctx)
        assert reap_stale_runs(stale_after_s=0, run_id=ctx.run.pk) == [ctx.run.pk]
        return outcome

    monkeypatch.setitem(loop.SYSTEMS, "dual", replace(dual, offline=reaped_midway))
    run = make_run(library, "dual")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "heartbeat" in run.error
    assert run.finished_at is not None and run.answer and run.trajectory["surfaced"]
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


def silent_then_dual(seconds: float, reaped: list):
    """The dual system after a step that reports nothing for `seconds` (a long model call, a cold load); the
    reaper looks at the run as the silence ends and records what it took."""
    import time
    from dataclasses import replace

    dual = loop.SYSTEMS["dual"]

    def step(ctx):
        time.sleep(seconds)
        reaped.extend(reap_stale_runs())
        return dual.run(ctx)

    return replace(dual, offline=step)


@pytest.mark.django_db(transaction=True)  # the heartbeat thread writes through a connection of its own
def test_a_step_longer_than_the_stale_window_is_not_taken_for_a_lost_worker(library, settings, monkeypatch):
    settings.EVIDENCE_RUN_STALE_AFTER_S = 1.0
    reaped: list[int] = []
    monkeypatch.setitem(loop.SYSTEMS, "dual", silent_then_dual(2.5, reaped))
    run = make_run(library, "dual")
    execute_run(run.pk)
    run.refresh_from_db()
    assert reaped == [] and run.status == Run.Status.ANSWERED


@pytest.mark.django_db(transaction=True)
def test_a_run_hung_far_past_its_budget_stops_beating_and_is_reaped(library, settings, monkeypatch):
    settings.EVIDENCE_RUN_STALE_AFTER_S = 0.5
    reaped: list[int] = []
    # Budget 0.5 s: the beats stop after 2 x 0.5 + 0.5 s, so 3 s of silence is a stale heartbeat.
    monkeypatch.setitem(loop.SYSTEMS, "dual", silent_then_dual(3.0, reaped))
    run = make_run(library, "dual", budget_s=0.5)
    execute_run(run.pk)
    run.refresh_from_db()
    assert reaped == [run.pk]
    assert run.status == Run.Status.FAILED and "heartbeat" in run.error


def test_a_fresh_heartbeat_is_not_reaped(library):
    from django.utils import timezone

    run = make_run(library, "dual")
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    assert reap_stale_runs() == []


def test_an_unexpected_crash_is_shown_as_a_plain_sentence_and_logged(run, monkeypatch, caplog):
    from dataclasses import replace

    from evidence.agent import research as loop

    def crash(ctx):
        raise KeyError("internal detail")

    monkeypatch.setitem(loop.SYSTEMS, run.system, replace(loop.SYSTEMS[run.system], offline=crash))
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and run.error == loop.INTERNAL_ERROR
    assert any("internal detail" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)
