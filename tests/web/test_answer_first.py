"""The run page leads with the answer: the short answer and its confidence in words, the sentence it comes from,
then the evidence as numbered whole sentences; a withheld or Not found answer says so and shows no guess."""

from __future__ import annotations

import re

import pytest

from evidence.presenting.answers import answer_view, confidence_words, readable, run_citations
from tests.web.answer_runs import paper, paper_run

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def block(html: str, element_id: str) -> str:
    """The HTML from an element with this id to the end of its section (good enough for these pages)."""
    at = html.index(f'id="{element_id}"')
    return html[html.index(">", at) + 1 :]


@pytest.fixture
def doc(collection):
    return paper(collection)


@pytest.mark.parametrize(
    ("p", "words"),
    [(0.95, "very likely right, 95%"), (0.82, "likely right, 82%"), (0.7497, "likely right, 75%"),
     (0.62, "probably right, 62%"), (0.55, "as likely wrong as right, 55%"), (0.3, "more likely wrong than right, 30%"),
     (None, "")],
)  # fmt: skip
def test_it_puts_confidence_in_honest_words(p, words):
    assert confidence_words(p) == words


def test_it_reads_pdf_debris_out_of_a_quote():
    assert readable("• We describe it.¹ The graph") == "We describe it. The graph"
    assert readable("on the benchmark.1 We use Fig.1 in v2.1") == "on the benchmark. We use Fig.1 in v2.1"
    assert readable(" a\n b ") == " a b "


def test_it_lays_out_the_evidence_as_whole_sentences(user, collection, doc):
    run = paper_run(user, collection, doc)
    view = answer_view(run, run_citations(run))
    assert (view.state, view.text, view.confidence_words) == ("short", "280M", "likely right, 82%")
    sentences = [item.before + "".join(text for _, text in item.parts) + item.after for item in view.evidence]
    assert sentences == [
        "We describe a deployed scalable system for organizing published scientific literature into a heterogeneous "
        "graph to facilitate algorithmic manipulation and discovery.",
        "The resulting literature graph consists of more than 280M nodes, representing papers, authors, entities and "
        "various interactions between them.",
        "Although participants were exposed to the graph during the study, most of them never opened it.",
    ]
    assert view.source is view.evidence[1] and ("mark", "280M") in view.source.parts
    assert view.evidence[2].quote == "Although participants were exposed to"  # the span itself is untouched
    assert view.explanation == []  # the answer only quotes: no glued paragraph


def test_the_run_page_opens_with_the_short_answer(logged_in_client, user, collection, doc):
    run = paper_run(user, collection, doc)
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    order = [html.index(marker) for marker in ("<h1>", 'id="short-answer"', 'ol class="citations evidence"',
                                               'id="research"', 'id="timeline"')]  # fmt: skip
    assert order == sorted(order)
    lead = text_of(block(html, "short-answer"))
    assert lead.startswith("280M likely right, 82% The resulting literature graph consists of more than 280M nodes")
    assert '<mark class="short-answer">280M</mark>' in html
    assert "check it in the source" in lead and f"/runs/{run.pk}/audit?span=" in block(html, "short-answer")
    assert html.count('<li id="cite-') == 3 and "•" not in html.split('id="research"')[0]
    assert '<details class="research card" id="research">' in html  # folded once the run ended
    assert "OPENAI_API_KEY" not in html and "Spend" not in html and "Model calls" not in html


def test_a_withheld_answer_shows_no_guess_as_the_answer(logged_in_client, user, collection, doc):
    run = paper_run(user, collection, doc, outcome="no_short_answer", confidence=0.38, candidate="3 tasks")
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    answer = html[html.index('id="answer"') : html.index('id="research"')]
    assert "No short answer" in text_of(answer)
    assert "The papers don't state this clearly enough to answer." in text_of(answer).replace("&#x27;", "'")
    assert "3 tasks" not in answer and "<mark" not in answer and "best candidate" not in html
    guess = text_of(block(html, "rejected-guess"))
    assert guess.startswith("Rejected guess: “3 tasks”, with a 38% chance of being right")


def test_a_not_found_answer_says_so_plainly(logged_in_client, user, collection, doc):
    run = paper_run(user, collection, doc, outcome="not_found", candidate="280M")
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    answer = html[html.index('id="answer"') : html.index('id="research"')]
    assert "Not found in this collection" in text_of(answer) and "Closest evidence" in answer
    assert "<mark" not in answer and 'id="rejected-guess"' not in html
    assert "The closest evidence:" not in answer  # the explanation's own prefix is not pasted in


def test_spend_is_shown_only_when_a_paid_model_ran(logged_in_client, user, collection, doc):
    run = paper_run(user, collection, doc)
    run.calls, run.spent_usd = 3, 0.0123
    run.save(update_fields=["calls", "spent_usd"])
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert "$0.0123" in html and "3 language model calls" in html


def test_ask_again_carries_the_question_documents_and_options(logged_in_client, user, collection, doc):
    run = paper_run(user, collection, doc, system="single_pass",
                    config={"searcher": "bm25", "scope_docids": [doc.docid]})  # fmt: skip
    html = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    href = re.search(r'id="ask-again" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    form = logged_in_client.get(href).content.decode()
    assert f">\n{run.question}</textarea>" in form
    assert '<option value="single_pass" selected>' in form and '<option value="bm25" selected>' in form
    assert f'value="{doc.docid}"' in form and 'class="chip-title">Construction of the Literature Graph' in form


def test_the_runs_list_shows_answers_with_confidence_and_threads(logged_in_client, user, collection, doc):
    parent = paper_run(user, collection, doc)
    withheld = paper_run(user, collection, doc, outcome="no_short_answer", question="And its edges?")
    withheld.follows = parent
    withheld.save(update_fields=["follows"])
    html = text_of(logged_in_client.get("/runs/").content.decode())
    assert "280M likely right, 82%" in html
    assert "↳ follow-up to How many nodes does the Semantic" in html and "And its edges? No short answer –" in html
    assert "· 1 follow-up" in html


def test_compare_leads_with_a_verdict(logged_in_client, user, collection, doc):
    a = paper_run(user, collection, doc)
    b = paper_run(user, collection, doc, system="single_pass", confidence=0.93)
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    verdict = text_of(html[html.index('id="verdict"') : html.index("compare-summary")])
    assert "280M likely right, 82%" in verdict and "280M very likely right, 93%" in verdict
    assert "They agree: both runs give the short answer 280M" in verdict
    assert "Both runs cite 3 spans:" in verdict
    c = paper_run(user, collection, doc, outcome="no_short_answer")
    html = logged_in_client.get(f"/compare?a={a.pk}&b={c.pk}").content.decode()
    verdict = text_of(html[html.index('id="verdict"') : html.index("compare-summary")])
    assert "No short answer" in verdict and "Only one run gives a short answer" in verdict
    assert "Dual (planner + System 1 judge)" in verdict and "#" + str(a.pk) not in html


def test_the_home_page_lists_latest_runs_with_their_short_answers(logged_in_client, user, collection, doc):
    paper_run(user, collection, doc)
    paper_run(user, collection, doc, outcome="no_short_answer", question="And its edges?", candidate="1 hour")
    html = text_of(logged_in_client.get("/").content.decode())
    assert "280M likely right, 82%" in html
    assert "And its edges? No short answer" in html and "1 hour" not in html


def test_the_reader_note_never_claims_a_short_answer_that_was_withheld():
    from evidence.presenting.answers import reader_note

    assert reader_note({"backend": "model"}).startswith("Short answer read from")
    assert "no answer sure enough" in reader_note({"backend": "model"}, shown=False)
    assert "gave this answer" not in reader_note(
        {"backend": "extractive", "fallback": "it ran out of time"}, shown=False
    )
