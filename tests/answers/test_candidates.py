"""Typed answer candidates on real sentences (quoted from the papers in ../shared/data/realqa/papers)."""

from __future__ import annotations

import re

import pytest

from evidence.answers.candidates import candidates, holds_kind
from evidence.answers.nlp import parse
from evidence.text.question import analyse, negated, question_kind


def found(question: str, sentence: str) -> list:
    return candidates(sentence, analyse(question), parse([sentence])[0])


def texts(question: str, sentence: str) -> list[str]:
    return [c.text for c in found(question, sentence)]


def test_every_candidate_is_the_sentence_text_at_its_offsets():
    sentence = (
        "For the in-depth interviews, 20 stakeholders were purposively sampled [12] and stratified into four "
        "categories of respondents entailing staff, management, patient and affiliate."
    )
    cands = found("How many stakeholders were sampled?", sentence)
    assert cands
    for c in cands:
        assert " ".join(sentence[c.start : c.end].split()) == c.text


def test_a_count_keeps_its_counted_noun_and_never_takes_a_citation_marker():
    sentence = (
        "For the in-depth interviews, 20 stakeholders were purposively sampled [12] and stratified into four "
        "categories of respondents."
    )
    cands = found("How many stakeholders were sampled for the interviews?", sentence)
    assert ("20 stakeholders", "count") in [(c.text, c.type) for c in cands]
    assert "12" not in [c.text for c in cands]


def test_citation_lists_table_figure_section_and_equation_numbers_are_never_candidates():
    sentence = "Results are shown in Table 3 and Figure 2 (see Section 4), as in [15, 43, 44], and follow Eq. 7."
    numbers = [c.text for c in found("What value was obtained?", sentence) if re.search(r"\d", c.text)]
    assert numbers == []
    labelled = "The energy is E = mc2 (1)."
    assert "1" not in texts("What is the energy?", labelled)


def test_a_year_is_a_candidate_only_when_the_question_asks_for_one():
    sentence = "The Ensembl release of 2013 held 7,918 gene families of vertebrates."
    assert "2013" not in texts("How many gene families did the release hold?", sentence)
    assert "2013" in texts("In what year was the Ensembl release used?", sentence)


def test_a_number_the_question_already_writes_is_not_its_answer():
    sentence = "The codeML analysis of 7,918 Ensembl gene families took 36,180 CPU hours."
    cands = texts("How many CPU hours did the codeML analysis of 7,918 gene families take?", sentence)
    assert "36,180 CPU hours" in cands or "36,180" in cands
    assert not any(c.startswith("7,918") for c in cands)


def test_a_magnitude_letter_on_the_digits_is_part_of_the_number_but_a_metre_is_a_unit():
    sentence = "Removing duplicates left 37M unique paper nodes, from 1.4M PDFs, and cables of 5m."
    cands = texts("How many papers are in the literature graph?", sentence)
    assert "37M" in cands and "1.4M" in cands
    assert not {"1", "37", "4"} & set(cands)
    typed = {(c.text, c.type) for c in found("How many papers are in the literature graph?", sentence)}
    assert ("5m", "number") not in typed  # a length in metres, never five million
    assert holds_kind(sentence, analyse("How many papers are in the literature graph?"))[0]


def test_percentages_ranges_and_units_are_typed():
    sentence = "Between 40–60% of the cells were GFAP-labelled astrocytes, and waves crossed gaps at 5.43 µm/s."
    typed = {(c.text, c.type) for c in found("What fraction of cells were astrocytes?", sentence)}
    assert ("40–60%", "percentage") in typed
    assert ("5.43 µm/s", "quantity") in typed


def test_names_lists_and_noun_phrases_are_whole_and_never_end_mid_clause():
    sentence = "Relevant articles were identified using PubMed, EMBASE, and Medline."
    cands = texts("Which databases were searched?", sentence)
    assert "PubMed, EMBASE, and Medline" in cands
    instrument = "1H NMR spectra were recorded on a Bruker AMX-400 (400 MHz) instrument using CDCl3 as solvent."
    assert "Bruker AMX-400" in texts("Which instrument recorded the spectra?", instrument)
    fragment = "Although participants were exposed to the programme, none of them reported difficulties."
    for c in found("What were participants exposed to?", fragment):
        assert not re.search(r"\b(?:to|the|of|and|were|a)$", c.text), c.text


def test_a_piece_of_a_hyphenated_name_is_not_a_candidate():
    sentence = "Differences between groups were tested with the Kruskal-Wallis test."
    assert "Wallis test" not in texts("Which test was used?", sentence)


@pytest.mark.parametrize(
    ("sentence", "polar"),
    [
        ("Mechanical compression devices should not be used as an initial choice of prophylaxis.", True),
        ("The leaf extractives were insensitive to microbial growth in all assays.", True),
        ("The leaf extractives inhibited microbial growth in all assays.", False),
        ("No one expressed difficulty keeping to their medication regimen.", True),
    ],
)
def test_negation_is_read_from_the_sentence(sentence, polar):
    assert negated(sentence) is polar


def test_the_question_kind_and_what_a_sentence_holds():
    question = analyse("How many stakeholders were purposively sampled?")
    assert question.kind == "count"
    assert holds_kind("Twenty stakeholders were sampled, 20 in all.", question) == (True, False)
    assert question_kind("Did the extractives inhibit microbial growth?") == "yes_no"
    concentration = analyse("At what concentration was the dye used?")
    assert holds_kind("The dye was used at 0.1 mg/mL in every well.", concentration) == (True, True)
