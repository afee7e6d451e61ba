"""'Ask about this document' on a real paper: the scoped run reads it whole, sentence by sentence, as the whole
collection's question reads its best papers; a footnote can be the evidence, cited with its exact offsets."""

from __future__ import annotations

import pytest

from evidence.models import Run, RunEvent
from evidence.services.runs import execute_run
from tests.agent.test_loop import assert_consistent, make_run
from tests.ingesting import ingest_now
from tests.real_data import SHARED_DATA, require

pytestmark = pytest.mark.django_db

REVERB = "realqa/papers/reverb_relations_open_ie.pdf"


@pytest.fixture
def reverb(library):
    path = require(SHARED_DATA) / REVERB
    ingest_now(library, [(path.name, path.read_bytes())])
    return library.documents.get(source_name__endswith=path.name)


def test_a_run_about_one_long_paper_reads_it_whole_and_cites_the_footnote_that_answers(library, reverb):
    question = "Which toolkit does the ReVerb open information extraction system use for POS tagging and NP chunking?"
    run = make_run(library, question=question, config={"scope_docids": [reverb.docid]})
    execute_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.ANSWERED, run.error
    assert RunEvent.objects.get(run=run, kind="reader").payload["reader"] == "whole"
    cited = [c.span for c in run.citations.select_related("span__document")]
    assert cited and all(span.document_id == reverb.pk for span in cited)
    footnote = next(span for span in cited if "OpenNLP" in span.quote)
    assert reverb.text[footnote.start : footnote.end] == footnote.quote  # boxed exactly where it stands
    assert footnote.page is not None
    assert_consistent(run)


def test_a_table_row_is_read_beside_its_caption_and_header_and_prose_beside_its_neighbours():
    from evidence.agent.readers.general import table_of

    caption, header = "Table 1 Patient-provider relationship during consultation", "Item Yes (%) No (%) Respondents"
    assert table_of("Treated with respect 97.9 2.1 97", caption, header) == f"{caption}; columns: {header}"
    assert table_of("Privacy given 99 1 97", "", header) == f"columns: {header}"
    assert table_of("The patients valued being treated with respect.", caption, header) == ""  # prose: no table


def test_a_run_about_a_paper_hands_the_reader_a_rows_table_with_it(library, settings):
    from evidence.agent.core import load_document_units
    from evidence.agent.readers.general import score_paper_sentences

    path = require(SHARED_DATA) / "realqa/papers/qi_barriers_resource_limited.pdf"
    ingest_now(library, [(path.name, path.read_bytes())])
    paper = library.documents.get(source_name__endswith=path.name)
    papers = load_document_units(library.pk, [paper.docid], "sentence", with_vectors=True)
    blocks, scores = score_paper_sentences("What share of outpatients were treated with respect?", papers)
    row = next(i for i, b in enumerate(blocks) if b.text == "Treated with respect 97.9 2.1 97")
    assert scores["tables"][row] == (
        "Table 1 Patient-provider relationship during consultation; columns: Item Yes (%) No (%) Respondents"
    )
    prose = next(i for i, b in enumerate(blocks) if b.text.startswith("It illustrates that the staff"))
    assert scores["tables"][prose] == ""


def test_a_question_about_a_name_the_paper_never_writes_ends_not_found_without_a_confident_answer(
    library, reverb, monkeypatch
):
    import evidence.reader as reader
    from evidence.answers.layer import ShortAnswer
    from evidence.run_state import StoredAnswer

    def withheld(question, sentences, short, found, *args, **kwargs):  # the model's answer, not confident enough
        guess = ShortAnswer("72%", 0, 0, 3, 0.4, False, "percentage", [], {}, reader={"backend": "model"})
        return reader.Reading(guess, True)

    monkeypatch.setattr(reader, "read", withheld)
    question = "What precision does ReVerb reach on the MAVEN event detection benchmark?"
    run = make_run(library, question=question, config={"scope_docids": [reverb.docid]})
    execute_run(run.pk)
    run.refresh_from_db()
    stored = StoredAnswer.of(run)
    assert stored.outcome == "not_found" and stored.signals["missing_names"] == ["MAVEN"]
    # The same withheld answer to a question whose names the paper writes stays "No short answer".
    run = make_run(library, question="What precision does ReVerb reach?", config={"scope_docids": [reverb.docid]})
    execute_run(run.pk)
    run.refresh_from_db()
    stored = StoredAnswer.of(run)
    assert stored.outcome == "no_short_answer" and "missing_names" not in stored.signals
