"""Whole-paper sentence reading: front matter, reference lists and headers are never candidates."""

import numpy as np

from evidence.judge.sentences import (
    RANK_FEATURES,
    body_flags,
    coverage,
    is_junk,
    nearest_captions,
    page_head,
    rank_features,
    score_sentences,
    table_row_share,
)
from evidence.judge.types import Block


def block(text: str, label: str = "Methods", start: int = 0) -> Block:
    return Block("d", start, start + len(text), text, "sentence", label)


def test_reference_lists_headers_and_bib_fragments_are_junk():
    assert is_junk(block("Explicit semantic ranking for academic search via knowledge graph embedding.", "References"))
    assert is_junk(block("In AAAI.", "Methods"))
    assert is_junk(block("Frontiers in Microbiology | www.frontiersin.org 5 January 2019"))
    assert not is_junk(
        block("Water samples were collected on board the research vessel between 5 and 12 November 2007.")
    )
    assert not is_junk(block("In all cases, a piece of muscle tissue was removed from the lateral thigh muscle."))


def test_the_title_author_block_and_repeated_headers_are_not_body():
    blocks = [
        block("Counting crows: population structure in a zoo", ""),
        block("We counted the crows of the zoo every week for two years.", "Abstract"),
        block("Behavioral Ecology running header text here", "Methods"),
        block("Birds were caught with ladder traps and ringed with colour rings.", "Methods"),
        block("Behavioral Ecology running header text here", "Results"),
    ]
    assert body_flags(blocks, "Counting crows") == [True, False, True, False, True]


def test_a_running_header_with_its_page_number_is_not_body_but_rows_of_numbers_are():
    head = "SPH-USER Documentation Implementation of SPH in LAMMPS"
    prose = "In this implementation, the heat capacity ratio of the ideal gas is set for dry air."
    blocks = [block("Dry air: an SPH note", ""), block("We simulate a gas.", "Abstract")]
    blocks += [block(f"{head} {page}") if page % 2 else block(f"{page} {head}") for page in (10, 11, 12)]
    rows = [f"Google+ (GP) undirected 23628 39242 {n}" for n in range(3)]  # one label, a page-number-like end
    blocks += [block(prose), *[block(row) for row in rows], block("Order 39242 3.3217 2771")]
    flags = body_flags(blocks, "Dry air: an SPH note")
    assert flags[2:5] == [True, True, True]  # the same header on three pages, its number before or after it
    assert not any(flags[5:])  # prose and table rows stay
    assert page_head("[1] 0.0104") is None and page_head("n = 200 1.581 1.924 2.110") is None  # numbers, no words
    assert not any(body_flags([block(f"{head} {page}") for page in (10, 11)], "Dry air"))  # on two pages: kept


def test_a_paper_whose_first_found_heading_comes_late_keeps_its_body():
    prose = [block(f"In run {i} the crows were counted at the feeding station by two people.", "") for i in range(30)]
    blocks = [block("Counting crows: population structure in a zoo", ""), *prose, block("We conclude.", "Conclusion")]
    flags = body_flags(blocks, "Counting crows")
    assert not any(flags[1:31])  # the 30 unlabelled sentences are body, not a title/author block


def test_the_sentence_with_the_rare_question_terms_scores_best():
    texts = ["Crows live in the zoo.", "Crows were caught with ladder traps.", "The zoo has many visitors."]
    vectors = np.eye(3)
    scores = score_sentences({"caught": 1.0, "trap": 1.0, "crow": 1.0}, np.zeros(3), texts, vectors, texts, np.zeros(3))
    assert int(np.argmax(scores.score)) == 1
    assert coverage({"a": 1.0, "b": 1.0}, [["a", "b"], ["a"], []])[0] == 1.0


def test_the_phrase_naming_the_document_is_split_from_what_the_question_asks():
    from evidence.judge.sentences import question_terms, split_scope

    focus, scope = split_scope(
        "From which muscle were the samples taken in the study of postmortem protein degradation?"
    )
    assert focus == "From which muscle were the samples taken?"
    assert scope == "in the study of postmortem protein degradation"
    focus, scope = split_scope("According to the paper on rural development, how many people lived in poverty in 2002?")
    assert focus.startswith("how many people") and "rural" in scope
    assert (
        split_scope("What is the size of the maze in the path planning experiment?")[0]
        == "What is the size of the maze?"
    )
    assert split_scope("Which classifier is trained on the embeddings?") == (
        "Which classifier is trained on the embeddings?",
        "",
    )
    weights = question_terms("Which muscle was sampled in the study of protein degradation?", scope_weight=0.1)
    assert weights["muscl"] == 1.0 and weights["degrad"] == 0.1


def test_summary_sections_are_the_abstract_introduction_and_conclusion():
    from evidence.judge.sentences import summary_section

    assert (
        summary_section("Abstract") and summary_section("1 Introduction") and summary_section("6 Conclusion and Future")
    )
    assert summary_section("Conclusiones")
    assert not summary_section("3 Extracting Metadata") and not summary_section("") and not summary_section(None)


def test_a_summary_section_that_runs_over_most_of_the_paper_is_body():
    from evidence.judge.sentences import summary_flags

    paper = ["Abstract"] * 2 + ["1 Introduction"] * 3 + ["2 Method"] * 10 + ["3 Results"] * 4 + ["4 Conclusion"]
    flags = summary_flags(paper)
    assert flags[:5] == [True] * 5 and flags[-1] and not any(flags[5:-1])
    # A manual whose later headings were never found: its "Introduction" label runs over nearly every sentence.
    manual = ["Abstract"] + ["Introduction"] * 18 + ["Appendix"]
    assert summary_flags(manual) == [True] + [False] * 19
    assert summary_flags([]) == []


def test_a_footnote_or_sentence_with_a_link_is_evidence_but_a_bare_link_or_header_is_not():
    # a real footnote of the ReVerb paper (dev2): the answer to "which toolkit for POS tagging?"
    assert not is_junk(block("²REVERB uses OpenNLP for POS tagging and NP chunking: http://opennlp.sourceforge.net/"))
    assert not is_junk(block("Measured in terms of AER | | A S |, agreement between the two annotators was 93.1%."))
    assert is_junk(block("Available at http://www.example.org/data"))
    assert is_junk(block("Journal of Machine Learning Research 3 (2003) 993-1022 | www.jmlr.org"))


def test_a_table_row_is_read_with_its_tables_caption():
    texts = [
        "Table 1 presents F1 of event detection on the ACE2005 test set.",
        "HGEED [17] 80.1 72.7 76.2",
        "We thank the reviewers.",
    ]
    assert nearest_captions(texts) == ["Table 1 presents F1 of event detection on the ACE2005 test set."] * 3
    assert table_row_share(texts[1]) == 0.6 and table_row_share(texts[2]) == 0.0
    weights = {"f1": 1.0, "ace2005": 1.0, "hgeed": 1.0}
    scores = score_sentences(weights, np.zeros(3), texts, np.eye(3), texts, np.zeros(3))
    rows = rank_features(weights, scores, texts, nearest_captions(texts), np.zeros(3), np.zeros(3), np.zeros(3))
    caption = RANK_FEATURES.index("caption")
    assert rows.shape == (3, len(RANK_FEATURES))
    assert rows[1, caption] > rows[0, caption] and rows[1, caption] > rows[2, caption]  # only the row reads it


def test_the_shipped_sentence_ranker_reads_the_features_the_reader_computes():
    from evidence.agent.readers.general import RANK_HEAD, _head

    head = _head(RANK_HEAD)
    assert head is not None and head.features == list(RANK_FEATURES)
    assert head.meta["fitted_on"].startswith("realqa dev.json + dev2.json part A")
    rows = np.zeros((2, len(RANK_FEATURES)))
    rows[0, RANK_FEATURES.index("type_match")] = 1.0  # holding what is asked ranks a sentence higher
    logits = head.raw(head.select(rows, RANK_FEATURES))
    assert logits[0] > logits[1]
