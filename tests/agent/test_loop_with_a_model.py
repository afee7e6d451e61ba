"""The research loop with a (fake) language model as System 2: its tools, budget, steer, spending cap and replays."""

from __future__ import annotations

import pytest

from evidence.agent import research as loop
from evidence.agent.planning import llm as llm_planner
from evidence.agent.systems import baselines as llm_systems
from evidence.models import Run, RunEvent
from evidence.services.runs import execute_run
from tests.agent.fake_openai import error, large_output, slow, text, tool_calls
from tests.agent.runs import PAPER_MD, assert_consistent, make_run
from tests.ingesting import ingest_now

pytestmark = pytest.mark.django_db


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
