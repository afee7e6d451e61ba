"""The answerability check through a whole run: a withheld answer the check says "no" to ends the run Not found,
with the closest evidence still quoted; one it says "yes" to ends as "No short answer"."""

from __future__ import annotations

import pytest

from evidence.models import Run
from evidence.reader import reading
from evidence.services.runs import execute_run
from tests.agent.test_loop import make_run
from tests.reader.test_read import WEAK_ANSWER, Checked

pytestmark = pytest.mark.django_db

QUESTION = "How many milligrams of melatonin were taken before bedtime in the laboratory study?"


@pytest.mark.parametrize(("check", "status"), [("no", Run.Status.NOT_FOUND), ("yes", Run.Status.ANSWERED)])
def test_a_withheld_answer_ends_the_run_as_its_check_says(library, monkeypatch, check, status):
    backend = Checked("400 mg", WEAK_ANSWER, check)
    monkeypatch.setattr(reading.runtime, "backend", lambda: backend)
    run = make_run(library, "dual", question=QUESTION)
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == status, run.error
    assert len(backend.asked) == 2 and "Proposed answer: 400 mg" in backend.asked[1][0]
    assert run.answer["signals"]["reading"]["check"]["not_found"] is (check == "no")
    assert run.answer["exact_answer"] != "400 mg"  # withheld either way: never shown
    assert "400 mg of caffeine" in run.answer["explanation"]  # the evidence is quoted either way
