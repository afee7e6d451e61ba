"""A table cell as evidence on a real paper, through the product path with the shipped reader model: the model reads
the row beside its table's caption and header and answers with the cell; the row is cited first with its exact
offsets, and the cell is boxed on the PDF page where it is printed, in the row's line of the table."""

from __future__ import annotations

import pytest

from evidence.models import Run
from evidence.pdfpages import span_pages
from evidence.reader import runtime
from evidence.run_state import StoredAnswer
from evidence.services.runs import execute_run
from tests.agent.test_loop import assert_consistent, make_run
from tests.ingesting import ingest_now
from tests.reader.models import shipped_model
from tests.real_data import SHARED_DATA, require

pytestmark = pytest.mark.django_db

PAPER = "realqa/papers/qi_barriers_resource_limited.pdf"
ROW = "Treated with respect 97.9 2.1 97"
QUESTION = (
    "In the exit interviews at the Kamuzu Central Hospital Medical Department, what percentage of outpatients said "
    "they were treated with respect during consultation?"
)


@pytest.fixture
def paper(library):
    path = require(SHARED_DATA) / PAPER
    ingest_now(library, [(path.name, path.read_bytes())])
    return library.documents.get(source_name__endswith=path.name)


@pytest.mark.slow
def test_the_row_holding_the_answer_is_cited_and_its_cell_boxed_where_it_is_printed(library, paper, settings):
    settings.EVIDENCE_READER = "local"
    settings.EVIDENCE_READER_TIMEOUT_S = 120.0  # the answer is checked here, not its speed on a busy machine
    shipped_model()
    runtime.forget()
    run = make_run(library, question=QUESTION, config={"scope_docids": [paper.docid]})
    try:
        execute_run(run.pk)
    finally:
        runtime.forget()
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    answer = StoredAnswer.of(run)
    assert answer.exact_answer == "97.9", answer
    start, end = answer.highlight  # the short answer marked inside the row it was read from
    assert answer.explanation[start:end] == "97.9"
    assert answer.explanation[start - ROW.index("97.9") : end] == ROW[: ROW.index("97.9") + 4]
    row = next(c.span for c in run.citations.select_related("span") if c.span.quote == ROW)  # the row alone
    assert paper.text[row.start : row.end] == ROW and row.page == 4
    assert_consistent(run)

    cell = row.start + ROW.index("97.9")
    (part,) = span_pages(paper, paper.source_file, cell, cell + len("97.9"))
    assert part.number == 4 and part.characters == 4 and part.missing == 0
    (line,) = span_pages(paper, paper.source_file, row.start, row.end)
    assert line.missing == 0
    tops = {round(box.y) for box in line.boxes}
    assert max(tops) - min(tops) <= 2  # the whole row on one printed line
    left = min(box.x for box in line.boxes if box.offset >= row.start + ROW.index("97.9"))
    assert [box.x for box in part.boxes] == sorted(box.x for box in part.boxes)
    assert part.boxes[0].x == left  # the cell's first glyph begins the row's first number
    assert abs(part.boxes[0].y - line.boxes[0].y) <= 2
