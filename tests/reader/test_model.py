"""The reader model for real: its own process (start, answer, crash, restart), a run through the product path with
a small model, and the shipped model on real questions."""

from __future__ import annotations

import json
import time

import pytest

from evidence.answers.layer import ShortAnswer
from evidence.answers.ranker_rows import Sentence
from evidence.eval.metrics_papers import answer_correct
from evidence.models import Run, RunEvent
from evidence.reader import reading, runtime
from evidence.reader.backends import HostBackend, ReaderUnavailable
from evidence.reader.prompt import Evidence, system_message, user_message
from evidence.services.runs import execute_run
from tests.reader.models import shipped_model, small_model


def test_the_host_answers_keeps_the_instruction_and_restarts_after_a_crash(tmp_path):
    host = HostBackend(small_model(), threads=1, lock=tmp_path / "reader.lock")
    try:
        user = user_message("How many adults were in the trial?", [Evidence("The trial enrolled 7,447 adults.")])
        first = host.complete(system_message(), user, 8, 60.0)
        assert first.steps and all(s.logprob <= 0 for s in first.steps) and first.prompt_tokens > 20
        again = host.complete(system_message(), user_message("Who ran it?", [Evidence("Doctors ran it.")]), 8, 60.0)
        assert again.evaluated_tokens < again.prompt_tokens  # the instruction's state was kept
        host.process.kill()  # the model's process dies (an out-of-memory kill, a crash)
        host.process.wait()
        after = host.complete(system_message(), user, 8, 60.0)
        assert after.text == first.text  # a new host, the same greedy answer
    finally:
        host.close()


def test_a_host_that_cannot_load_its_model_is_reported(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model")
    host = HostBackend(broken, threads=1)
    with pytest.raises(ReaderUnavailable, match=r"ended|did not start"):
        host.complete(system_message(), "Question: x", 4, 30.0)


def test_a_reader_out_of_time_falls_back_to_the_extractive_answer(settings):
    settings.EVIDENCE_READER = str(small_model())
    runtime.forget()
    extractive = ShortAnswer("7,447 adults", 0, 19, 31, 0.4, False, "count", [], {})
    sentences = [Sentence("The trial enrolled 7,447 adults. " * 40, 0, 1.0, 0.9)]
    try:
        result = reading.read("How many adults?", sentences, extractive, True, timeout_s=1.01)
    finally:
        runtime.forget()
    assert result.short.text == "7,447 adults"
    # Out of its budget either way: while reading ("ran out of time"), or before the host answered at all on a busy
    # machine ("gave no answer within 6 s").
    fallback = result.short.reader["fallback"]
    assert result.short.reader["backend"] == "extractive" and ("time" in fallback or "within" in fallback)


@pytest.mark.django_db
def test_a_run_is_answered_through_the_model_and_says_so_in_its_stream(library, settings):
    settings.EVIDENCE_READER = str(small_model())
    runtime.forget()
    run = Run.objects.create(owner=library.owner, collection=library, system="dual",
                             question="How much does caffeine reduce total sleep time?")  # fmt: skip
    try:
        execute_run(run.pk)
    finally:
        runtime.forget()
    run.refresh_from_db()
    assert run.status in (Run.Status.ANSWERED, Run.Status.NOT_FOUND), run.error
    reading_signals = run.answer["signals"]["reading"]
    assert reading_signals["backend"] == "model" and reading_signals["prompt_tokens"] > 0
    events = list(RunEvent.objects.filter(run=run, kind="reader").values_list("payload", flat=True))
    assert events and "with the language model" in events[0]["message"]


@pytest.mark.slow
def test_the_shipped_model_answers_real_questions_from_their_sentence_among_others(settings, shared_data):
    """Three dev2 questions, each with its gold sentence among the quotes of 4 other questions about the same paper."""
    questions = json.loads((shared_data / "realqa" / "dev2.json").read_text())
    by_paper: dict[str, list[str]] = {}
    for q in questions:
        for e in q["evidence"][:1]:
            by_paper.setdefault(e["docid"], []).append(e["quote"])
    chosen = [q for q in questions if q["qid"] in ("e001", "e012", "e003")]
    settings.EVIDENCE_READER = "local"
    shipped_model()
    runtime.forget()
    right, seconds = 0, []
    try:
        for q in chosen:
            gold = q["evidence"][0]["quote"]
            others = [s for s in by_paper[q["evidence"][0]["docid"]] if s != gold][:4]
            texts = [*others[:2], gold, *others[2:]]
            sentences = [Sentence(t, i, 1.0, 0.5) for i, t in enumerate(texts)]
            started = time.monotonic()
            result = reading.read(q["question"], sentences, ShortAnswer("", None, 0, 0, 0.0, False, "name"), True,
                                  threshold=0.0)  # fmt: skip
            seconds.append(time.monotonic() - started)
            assert result.short.reader["backend"] == "model", result.short.reader
            right += answer_correct(result.short.display, q["answers"], q["type"], strict=True)
    finally:
        runtime.forget()
    assert right >= 2, f"{right} of 3 right"
