"""Questions that name their options: the answer is one of them, as the evidence favours it."""

from __future__ import annotations

from evidence.answers.options import choose_option, named_options
from evidence.answers.ranker_rows import Sentence


def sentences(*texts: str) -> list[Sentence]:
    return [Sentence(text, rank, 1.0 - rank / 10, 0.8) for rank, text in enumerate(texts)]


def test_it_reads_the_options_a_question_names_at_its_end():
    assert named_options("Who is older, Annie Morton or Terry Richardson?") == ["Annie Morton", "Terry Richardson"]
    assert named_options("How many beds does the hospital have?") == []
    assert named_options("Is it red or blue?") == []  # no comma: a yes/no question, not a choice


def test_older_takes_the_earlier_year_and_younger_the_later():
    evidence = sentences(
        "Annie Morton (born October 8, 1970) is an American model.",
        "Terry Richardson (born August 14, 1965) is an American fashion photographer.",
    )
    older = choose_option("Who is older, Annie Morton or Terry Richardson?", evidence)
    assert older is not None and older.text == "Terry Richardson"
    assert evidence[older.sentence].text[older.start : older.end] == "Terry Richardson"
    younger = choose_option("Who is younger, Annie Morton or Terry Richardson?", evidence)
    assert younger is not None and younger.text == "Annie Morton"


def test_otherwise_the_option_whose_sentences_say_what_is_asked():
    evidence = sentences(
        "Henry Roth was an American novelist born in Tysmenitz.",
        "Robert Erskine Childers was an English-born writer from London, England.",
    )
    chosen = choose_option("Which writer was from England, Henry Roth or Robert Erskine Childers?", evidence)
    assert chosen is not None and chosen.text == "Robert Erskine Childers" and chosen.margin > 0
