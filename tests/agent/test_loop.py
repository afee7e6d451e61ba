"""The research loop: every system ends in exactly one status, with spans that round-trip and cited ids delivered."""

from __future__ import annotations

import pytest

from evidence.agent import research as loop
from evidence.agent.planning import llm as llm_planner
from evidence.agent.systems import baselines as llm_systems
from evidence.models import Run, RunEvent
from evidence.services.runs import execute_run, reap_stale_runs
from tests.agent.fake_openai import error, large_output, slow, text, tool_calls
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db


def make_run(library, system="dual", question="How much does caffeine reduce total sleep time?", **kwargs):
    return Run.objects.create(owner=library.owner, collection=library, question=question, system=system, **kwargs)


def assert_consistent(run: Run) -> None:
    delivered = {(s.document.docid, s.start, s.end) for s in run.spans.filter(delivered=True)}
    for span in run.spans.all():
        assert span.document.text[span.start : span.end] == span.quote
    for citation in run.citations.all():
        assert (citation.span.document.docid, citation.span.start, citation.span.end) in delivered
    seqs = list(RunEvent.objects.filter(run=run).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


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


PAPER_MD = (
    b"# Robust sentiment models\n\n## Introduction\n\nSentiment models fail on noisy reviews, and we ask why.\n\n"
    b"## Data\n\nWe collected 20,000 hotel reviews from TripAdvisor and annotated each one for sentiment.\n\n"
    b"## Results\n\nOur model reaches 91.2 accuracy and outperforms every baseline.\n"
)


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


# ------------------------------------------------------------------ with a (fake) language model


def llm_run(library, fake_openai, system="dual", **config):
    return make_run(
        library, system, config={"planner": "llm", "base_url": fake_openai.base_url, "model": "gpt-4o-mini", **config}
    )


def test_the_llm_planner_uses_tools_and_keeps_only_delivered_citations(library, fake_openai):
    fake_openai.queue(
        tool_calls(("search", {"reason": "find the study", "query": "caffeine sleep time"})),
        tool_calls(("read_document", {"reason": "read it", "docid": "caffeine"})),
        text(
            "Explanation: Caffeine cut total sleep time by over an hour [caffeine]. Olive oil helps [diet]. "
            "Exact Answer: more than one hour Confidence: 80%"
        ),
    )
    run = llm_run(library, fake_openai, system="pi_serini")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert run.answer["exact_answer"] == "more than one hour"
    assert run.answer["dropped_citations"] == 1  # [diet] was never delivered
    assert [c.span.document.docid for c in run.citations.all()] == ["caffeine"]
    assert run.calls == 3 and run.model_calls.count() == 3
    assert_consistent(run)


def test_request_evidence_hands_system_one_spans_to_the_llm(library, fake_openai):
    fake_openai.queue(
        tool_calls(
            (
                "request_evidence",
                {
                    "reason": "read both",
                    "docids": ["caffeine", "nowhere"],
                    "sub_questions": ["How much does caffeine reduce total sleep time?"],
                },
            )
        ),
        text("Explanation: See the study [caffeine]. Exact Answer: an hour Confidence: 60%"),
    )
    run = llm_run(library, fake_openai)
    execute_run(run.pk)
    run.refresh_from_db()
    tool_output = fake_openai.requests[-1].body["messages"][-1]["content"]
    assert "Unknown docids (not in this collection): nowhere" in tool_output
    assert run.judgments.filter(document__docid="caffeine").exists()
    assert "caffeine" in run.trajectory["inspected"]
    assert_consistent(run)


def test_retries_are_visible_in_the_trace(library, fake_openai):
    fake_openai.queue(
        error(429, "slow down", retry_after="0"),
        error(500, "oops"),
        text("Explanation: nothing found. Exact Answer: unknown Confidence: 5%"),
    )
    run = llm_run(library, fake_openai)
    execute_run(run.pk)
    run.refresh_from_db()
    attempts = list(run.model_calls.values_list("attempt", "error"))
    assert [a for a, _ in attempts] == [1, 2, 3]
    assert attempts[0][1] and attempts[1][1] and not attempts[2][1]
    assert run.status == Run.Status.ANSWERED


def test_the_steer_blocks_tools_at_seventy_percent_of_the_budget(library, fake_openai):
    search = tool_calls(("search", {"reason": "look", "query": "caffeine"}))
    fake_openai.queue(
        slow(0.9, search),
        slow(0.9, search),
        text("Explanation: Caffeine shortens sleep. Exact Answer: yes Confidence: 50%"),
    )
    run = llm_run(library, fake_openai)
    # The steer is due at 70% (1.68 s), after the second call; 0.6 s of slack before the deadline on a busy machine.
    Run.objects.filter(pk=run.pk).update(budget_s=2.4)
    execute_run(run.pk)
    run.refresh_from_db()
    assert RunEvent.objects.filter(run=run, kind="steer").count() == 1
    last = fake_openai.requests[-1].body
    assert "tools" not in last or not last["tools"]
    assert "submit your best answer now" in last["messages"][-1]["content"]
    assert run.status in {Run.Status.ANSWERED, Run.Status.DEADLINE}


def test_the_hard_deadline_ends_the_run(library, fake_openai):
    search = tool_calls(("search", {"reason": "look", "query": "caffeine"}))
    fake_openai.default = slow(0.3, search)
    run = llm_run(library, fake_openai)
    Run.objects.filter(pk=run.pk).update(budget_s=0.5)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.DEADLINE


def test_the_spending_cap_is_never_crossed(library, fake_openai):
    fake_openai.default = large_output()
    run = llm_run(library, fake_openai)
    Run.objects.filter(pk=run.pk).update(spend_cap_usd=0.004)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status in {Run.Status.BUDGET, Run.Status.ANSWERED}
    assert run.spent_usd <= 0.004


def test_a_model_that_never_answers_hits_the_round_cap(library, fake_openai, monkeypatch):
    monkeypatch.setattr(llm_planner, "MAX_STEPS", 3)
    fake_openai.default = tool_calls(("search", {"reason": "again", "query": "sleep"}))
    run = llm_run(library, fake_openai)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ROUND_CAP


def test_a_recorded_run_replays_without_a_server_and_a_changed_prompt_names_the_call(library, fake_openai, monkeypatch):
    fake_openai.queue(
        tool_calls(("search", {"reason": "find", "query": "caffeine sleep"})),
        text("Explanation: Caffeine shortens sleep [caffeine]. Exact Answer: yes Confidence: 70%"),
    )
    original = llm_run(library, fake_openai, system="pi_serini")
    execute_run(original.pk)
    original.refresh_from_db()
    replay = make_run(
        library, "pi_serini", config={"planner": "replay", "replay_of": original.pk, "model": "gpt-4o-mini"}
    )
    execute_run(replay.pk)
    replay.refresh_from_db()
    assert replay.status == original.status == Run.Status.ANSWERED
    assert replay.answer == original.answer
    monkeypatch.setattr(llm_planner, "PROMPT", llm_planner.PROMPT + " Be brief.")
    changed = make_run(
        library, "pi_serini", config={"planner": "replay", "replay_of": original.pk, "model": "gpt-4o-mini"}
    )
    execute_run(changed.pk)
    changed.refresh_from_db()
    assert changed.status == Run.Status.FAILED
    assert "no recorded reply for call #1" in changed.error and "ReplayMissing" not in changed.error


def test_module_exposes_the_systems():
    assert loop.SYSTEM_NAMES == ("single_pass", "review_loop", "pi_serini", "dual")


def test_request_evidence_reads_a_paper_whole_by_its_sections(library, fake_openai):
    ingest_now(library, [("paper.md", PAPER_MD)])
    paper = library.documents.get(title="Robust sentiment models")
    fake_openai.queue(
        tool_calls(
            (
                "request_evidence",
                {"reason": "read the paper", "docids": [paper.docid], "sub_questions": ["What dataset do they use?"]},
            )
        ),
        text(f"Explanation: They collected hotel reviews [{paper.docid}]. Exact Answer: reviews Confidence: 70%"),
    )
    run = llm_run(library, fake_openai)
    execute_run(run.pk)
    run.refresh_from_db()
    tool_output = fake_openai.requests[-1].body["messages"][-1]["content"]
    assert "TripAdvisor" in tool_output and "Unknown docids" not in tool_output
    assert RunEvent.objects.filter(run=run, kind="paper_reading").exists()
    assert run.status == Run.Status.ANSWERED, run.error
    assert [c.span.document.docid for c in run.citations.all()] == [paper.docid]
    assert_consistent(run)


def test_a_models_short_answer_that_is_not_in_the_evidence_is_withheld(library, fake_openai):
    fake_openai.queue(text("Explanation: Caffeine cut sleep [caffeine]. Exact Answer: over an hour Confidence: 90%"))
    run = llm_run(library, fake_openai, system="single_pass")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.answer["exact_answer"] == "No short answer found" and run.answer["confidence"] == 0.0
    assert run.answer["signals"]["reading"] == {"backend": "planner", "anchored": False, "reply": "over an hour"}


def test_single_pass_with_a_model_answers_from_the_passages_in_one_call(library, fake_openai):
    fake_openai.queue(
        text(
            "Explanation: Caffeine cut sleep by over an hour [caffeine] [ghost]. Exact Answer: more than one hour "
            "Confidence: 70%"
        )
    )
    run = llm_run(library, fake_openai, system="single_pass")
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert run.calls == 1 and run.answer["exact_answer"] == "more than one hour"
    assert run.answer["dropped_citations"] == 1
    prompt = fake_openai.requests[0].body["messages"][-1]["content"]
    assert "[caffeine]" in prompt and "400 mg" in prompt
    assert_consistent(run)


def test_review_loop_with_a_model_reviews_and_refines_the_query(library, fake_openai):
    fake_openai.queue(
        text("Explanation: Walking helps [walking]. Exact Answer: yes Confidence: 40%"),
        text("REFINE: Mediterranean diet olive oil"),
        text(
            "Explanation: Walking grew the hippocampus by two percent [walking]. Diet is another lever [diet]. "
            "Exact Answer: two percent Confidence: 80%"
        ),
        text("SUPPORTED"),
    )
    run = llm_run(library, fake_openai, system="review_loop", top_k=1)
    run.question = "Does walking improve memory?"
    run.save(update_fields=["question"])
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert run.calls == 4 and run.answer["exact_answer"] == "two percent"
    reviews = [e.payload["supported"] for e in RunEvent.objects.filter(run=run, kind="review").order_by("seq")]
    assert reviews == [False, True]
    assert list(run.searches.order_by("id").values_list("query", flat=True))[1] == "Mediterranean diet olive oil"
    assert {c.span.document.docid for c in run.citations.all()} == {"walking", "diet"}
    assert_consistent(run)


def test_review_loop_stops_when_the_model_repeats_a_query(library, fake_openai):
    fake_openai.queue(
        text("Explanation: Caffeine cut sleep [caffeine]. Exact Answer: an hour Confidence: 30%"),
        text("REFINE: caffeine sleep"),
    )
    run = llm_run(library, fake_openai, system="review_loop")
    run.question = "caffeine sleep"
    run.save(update_fields=["question"])
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.NO_NEW_PASSAGES, run.error
    assert run.calls == 2


def test_a_recorded_review_loop_replays_and_a_changed_review_prompt_names_the_call(library, fake_openai, monkeypatch):
    fake_openai.queue(
        text("Explanation: Caffeine cut sleep [caffeine]. Exact Answer: an hour Confidence: 90%"),
        text("SUPPORTED"),
    )
    original = llm_run(library, fake_openai, system="review_loop")
    execute_run(original.pk)
    original.refresh_from_db()
    config = {"planner": "replay", "replay_of": original.pk, "model": "gpt-4o-mini"}
    replay = make_run(library, "review_loop", config=config)
    execute_run(replay.pk)
    replay.refresh_from_db()
    assert replay.status == original.status == Run.Status.ANSWERED
    assert replay.answer == original.answer and replay.calls == 2
    monkeypatch.setattr(llm_systems, "REVIEW_PROMPT", llm_systems.REVIEW_PROMPT + " Be strict.")
    changed = make_run(library, "review_loop", config=config)
    execute_run(changed.pk)
    changed.refresh_from_db()
    assert changed.status == Run.Status.FAILED
    assert "no recorded reply for call #2" in changed.error and "ReplayMissing" not in changed.error


@pytest.mark.parametrize("system", ["single_pass", "review_loop", "pi_serini", "dual"])
def test_every_system_uses_the_model_when_a_key_is_set(library, settings, system):
    from evidence.agent.core.planners import planner_name
    from evidence.run_state import RunConfig

    settings.OPENAI_API_KEY = "sk-test"
    assert planner_name(RunConfig.of(make_run(library, system))) == "llm"
    settings.OPENAI_API_KEY = ""
    assert planner_name(RunConfig.of(make_run(library, system))) == "offline"


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
