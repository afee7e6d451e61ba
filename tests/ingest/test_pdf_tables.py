"""A table in a real PDF: each row is a sentence of its own, with its header and caption as blocks above it, so a
cell can be cited with its row and boxed where it is printed."""

from __future__ import annotations

from evidence.ingest.parsers import parse_file
from tests.ingest.conftest import assert_document_ok

PAPER = "realqa/papers/qi_barriers_resource_limited.pdf"


def _sentences(doc, around: str, before: int, after: int) -> list[str]:
    at = doc.text.index(around)
    spans = [(r.start, r.end) for r in doc.regions_of("sentence")]
    i = next(k for k, (s, e) in enumerate(spans) if s <= at < e)
    return [doc.text[s:e] for s, e in spans[i - before : i + after + 1]]


def test_each_row_of_a_results_table_is_a_sentence_under_its_header(shared_data):
    doc = parse_file("qi.pdf", (shared_data / PAPER).read_bytes())[0]
    assert_document_ok(doc)
    assert _sentences(doc, "Treated with respect", 8, 1) == [
        "Table 1 Patient-provider relationship during consultation",
        "Item Yes (%) No (%) Respondents",
        "Privacy given 99 1 97",
        "Health conditions told 88.7 11.3 97",
        "Treatment implications told 79.4 20.6 97",
        "Opportunity to ask questions 62.8 37.2 78",
        "Your preferences considered 91.1 18.9 56",
        "Told how to take your medication 95.7 4.3 92",
        "Treated with respect 97.9 2.1 97",
        "Informed on staying healthier 70.1 29.9 97",
    ]
    page = next(p for p in doc.pages if p.start <= doc.text.index("Treated with respect") < p.end)
    assert page.number == 4


def test_prose_around_a_table_keeps_its_sentences(shared_data):
    doc = parse_file("qi.pdf", (shared_data / PAPER).read_bytes())[0]
    (before,) = _sentences(doc, "It illustrates that the staff", 0, 0)
    assert before == "It illustrates that the staff are indeed aware of these problems and open for change."
