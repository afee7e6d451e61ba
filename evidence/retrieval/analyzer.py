"""Text analyzers: text in, index terms out, chosen by name."""

import threading
from collections.abc import Callable

import Stemmer

from evidence.retrieval.lucene_analyzer import LUCENE_STOPWORDS, lucene_analyze, standard_tokenize

Analyzer = Callable[[str], list[str]]

# Lucene's 33 plus the Snowball/NLTK English list (the tokenizer keeps "don't" whole, so the list
# carries contractions as written).
_SNOWBALL_STOP_TEXT = """i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself its itself them theirs themselves what which who whom
    these those am were been
    being have has had having do does did doing because until while about against between through
    during before after above below from up down out off over under again further once here when
    where why how all any both each few more most other some own same so than too very can just
    should now don't don should've shouldn't aren't couldn't didn't doesn't hadn't hasn't haven't
    isn't mightn't mustn't needn't shan't wasn't weren't won't wouldn't you're you've you'll you'd
    she's it's that'll ain"""
ENGLISH_STOPWORDS = LUCENE_STOPWORDS | frozenset(_SNOWBALL_STOP_TEXT.split())

_local = threading.local()


def _snowball() -> Stemmer.Stemmer:
    """Return this thread's Snowball English stemmer (PyStemmer objects are not thread-safe)."""
    stemmer = getattr(_local, "english", None)
    if stemmer is None:
        stemmer = _local.english = Stemmer.Stemmer("english")
    return stemmer


def english_analyze(text: str) -> list[str]:
    """Tokenize (UAX#29 words), drop possessives and English stop words, Snowball-stem."""
    words = []
    for tok in standard_tokenize(text):
        tok = tok.lower()
        if len(tok) >= 2 and tok[-1] == "s" and tok[-2] in "'\u2019\uff07":
            tok = tok[:-2]
        if tok and tok not in ENGLISH_STOPWORDS:
            words.append(tok)
    return _snowball().stemWords(words)


_ANALYZERS: dict[str, Analyzer] = {"english": english_analyze, "lucene": lucene_analyze}


def get_analyzer(name: str) -> Analyzer:
    """Return the analyzer registered under name."""
    try:
        return _ANALYZERS[name]
    except KeyError:
        known = ", ".join(sorted(_ANALYZERS))
        raise ValueError(f"unknown analyzer {name!r}; known analyzers: {known}") from None
