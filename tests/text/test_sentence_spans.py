"""Sentence splitting: abbreviations, decimals, initials and exact offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidence.text.sentence_spans import split_sentences


def _split(text: str) -> list[str]:
    """Return the sentence strings of a text."""
    return [text[s:e] for s, e in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One here. Two there.", ["One here.", "Two there."]),
        ("We follow Devlin et al. (2019) closely. Next.", ["We follow Devlin et al. (2019) closely.", "Next."]),
        ("As shown by Smith et al. The model works.", ["As shown by Smith et al. The model works."]),
        ("Use a model, e.g. BERT, or i.e. more. Done.", ["Use a model, e.g. BERT, or i.e. more.", "Done."]),
        ("See Fig. 3 and Eq. 2 here. Then Dr. Who came.", ["See Fig. 3 and Eq. 2 here.", "Then Dr. Who came."]),
        ("It rose by 3.5 points. Then fell.", ["It rose by 3.5 points.", "Then fell."]),
        ("Daniel S. Weld and J. R. Smith wrote it. Yes.", ["Daniel S. Weld and J. R. Smith wrote it.", "Yes."]),
        ('Really? Yes! "Quoted." Then (paren.) Next.', ["Really?", "Yes!", '"Quoted."', "Then (paren.)", "Next."]),
        ("approx. five cases were seen.", ["approx. five cases were seen."]),
        ("Estimate Std. Error z value Pr(>|z|)", ["Estimate Std. Error z value Pr(>|z|)"]),  # R's header
        ("method Min. 1st Qu. Median Mean 3rd Qu. Max.", ["method Min. 1st Qu. Median Mean 3rd Qu. Max."]),
        ("First para\n\nsecond para", ["First para", "second para"]),
        ("  padded sentence.   ", ["padded sentence."]),
        ("", []),
        ("   \n ", []),
    ],
)
def test_it_splits(text: str, expected: list[str]) -> None:
    assert _split(text) == expected


def test_it_splits_a_window_with_absolute_offsets() -> None:
    text = "Skip this. Keep one. Keep two. Skip that."
    start = text.index("Keep one")
    end = text.index(" Skip that")
    spans = split_sentences(text, start, end)
    assert [text[s:e] for s, e in spans] == ["Keep one.", "Keep two."]


PIECES = [*'ab .!?\n\t"()e.gFig3,', "et al.", "Dr.", "\u00a0", "Fig. 2", "3.5", "J. Smith", "\n\n"]


@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)), max_size=120), st.integers(0, 20))
def test_it_always_gives_exact_ordered_spans(pieces: list[str], offset: int) -> None:
    text = "".join(pieces)
    begin = min(offset, len(text))
    spans = split_sentences(text, begin)
    previous = begin
    for start, end in spans:
        assert previous <= start < end <= len(text)
        quote = text[start:end]
        assert quote == quote.strip() and quote
        previous = end
    # Nothing but whitespace is ever lost between sentences.
    covered = "".join(text[s:e] for s, e in spans)
    assert "".join(covered.split()) == "".join(text[begin:].split())
