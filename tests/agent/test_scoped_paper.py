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
