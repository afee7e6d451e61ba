"""Passages: packed paragraphs within a word budget, exact and non-overlapping."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence.ingest.chunking import PassageSpan, make_passages
from evidence.ingest.types import ParsedDocument


def _doc(text: str) -> ParsedDocument:
    """Wrap a text as a document."""
    return ParsedDocument(title="T", text=text, source_format="text")


def _check(text: str, passages: list[PassageSpan], max_words: int) -> None:
    """Assert the passage invariants for a text."""
    previous = 0
    for i, p in enumerate(passages):
        assert p.ordinal == i
        assert previous <= p.start < p.end <= len(text)
        quote = text[p.start : p.end]
        assert quote and quote == quote.strip()
        assert len(quote.split()) <= max_words
        previous = p.end
    covered = "".join(text[p.start : p.end] for p in passages)
    assert "".join(covered.split()) == "".join(text.split())


def test_it_keeps_a_short_document_whole() -> None:
    text = "Short title line\n\nOne paragraph. Two sentences."
    assert make_passages(_doc(text)) == [PassageSpan(0, 0, len(text))]


def test_it_packs_paragraphs_and_splits_long_ones() -> None:
    para = " ".join(["word"] * 9) + "."
    long_para = " ".join(f"Sentence {i} has five words." for i in range(30))
    text = "\n\n".join([para, para, long_para, para])
    passages = make_passages(_doc(text), max_words=22)
    _check(text, passages, 22)
    quotes = [text[p.start : p.end] for p in passages]
    assert quotes[0] == para + "\n\n" + para  # 20 words packed, a 5-word sentence would overflow
    assert quotes[1] == " ".join(f"Sentence {i} has five words." for i in range(4))
    assert quotes[-1].endswith("\n\n" + para)


def test_it_splits_a_giant_sentence_at_words() -> None:
    text = " ".join(str(i) for i in range(1000))
    passages = make_passages(_doc(text), max_words=100)
    assert len(passages) == 10
    _check(text, passages, 100)


def test_it_handles_an_empty_text() -> None:
    assert make_passages(_doc("")) == []


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["word", "Dr.", "end.", "3.5", "?", "\n", "\n\n", "  ", "\t", "e.g.", "A.", "\u00a0"]),
            st.text(max_size=8),
        ),
        max_size=200,
    ),
    st.integers(min_value=1, max_value=40),
)
def test_it_always_gives_exact_passages(tokens: list[str], max_words: int) -> None:
    text = " ".join(tokens)
    _check(text, make_passages(_doc(text), max_words=max_words), max_words)
