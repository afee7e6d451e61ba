"""Analyzer tests; the "lucene" expectations were produced by Anserini 1.7.1 (Lucene 9.9.1) itself."""

import pytest
import Stemmer

from evidence.retrieval.analyzer import get_analyzer
from evidence.retrieval.porter import porter_stem

LUCENE_CASES = [
    (
        "The U.S. covid-19 patients' outcomes, 3.5 mg and 1,000 cells; John's dogs running "
        "generalizations h2o naïve Σίσυφος 漢字かな",
        ["u.", "covid", "19", "patient", "outcom", "3.5", "mg", "1,000", "cell", "john", "dog", "run",
         "gener", "h2o", "naïv", "σίσυφος", "漢", "字", "か", "な"],
    ),
    (
        "a:b 1:2 1;2 foo_bar ___ e.g. v1.2 2.a a.1 don't O'Neil\u2019s IL-6 TNF-\u03b1 10.1016/j.cell x_1 "
        "co\u00adoperation nai\u0308ve",
        ["a:b", "1", "2", "1;2", "foo_bar", "e.g", "v1.2", "2", "1", "don't", "o'neil", "il", "6", "tnf",
         "\u03b1", "10.1016", "j.cell", "x_1", "co\u00adoper", "nai\u0308v"],
    ),
    (
        "ΣΊΣΥΦΟΣ İstanbul straße ＡＢＣ１２３ カタカナ 한국어 ไทยภาษา \U0001f600 emoji 1st 2nd 3.5.6 1,2,3 a-b_c",
        ["σίσυφοσ", "istanbul", "straße", "ａｂｃ１２３", "カタカナ", "한국어", "ไทยภาษา", "\U0001f600", "emoji",
         "1st", "2nd", "3.5.6", "1,2,3", "b_c"],
    ),
    (
        "p<0.05 (n=12) 5\u2032-UTR β-catenin Ca2+ 37°C 1.5-fold x10^6 mRNA's cells' US$5 km² H₂O₂ ©",
        ["p", "0.05", "n", "12", "5", "utr", "β", "catenin", "ca2", "37", "c", "1.5", "fold", "x10", "6",
         "mrna", "cell", "us", "5", "km", "h", "o", "©"],
    ),
]


@pytest.mark.parametrize(("text", "expected"), LUCENE_CASES)
def test_it_tokenizes_like_lucene(text: str, expected: list[str]) -> None:
    assert get_analyzer("lucene")(text) == expected


# word -> (Lucene's Porter, Snowball "porter", Snowball English)
STEMS = {
    "generalizations": ("gener", "gener", "general"),
    "archaeology": ("archaeolog", "archaeologi", "archaeolog"),  # Lucene's extra logi -> log rule
    "analogies": ("analog", "analogi", "analog"),
    "formative": ("form", "form", "format"),
    "communism": ("commun", "commun", "communism"),
    "relational": ("relat", "relat", "relat"),
    "hopping": ("hop", "hop", "hop"),
    "dying": ("dy", "dy", "die"),
    "news": ("new", "new", "news"),
}


@pytest.mark.parametrize("word", sorted(STEMS))
def test_it_stems_with_lucene_porter_not_snowball(word: str) -> None:
    lucene, snowball_porter, snowball_english = STEMS[word]
    assert porter_stem(word) == lucene
    assert Stemmer.Stemmer("porter").stemWord(word) == snowball_porter
    assert get_analyzer("english")(word) == [snowball_english]


def test_it_leaves_short_words_unstemmed() -> None:
    assert porter_stem("us") == "us"
    assert get_analyzer("lucene")("is as us X") == ["us", "x"]


def test_it_drops_stopwords_and_possessives() -> None:
    assert get_analyzer("lucene")("The cat's toys are in the box") == ["cat", "toi", "box"]
    assert get_analyzer("english")("The cat's toys are in the box, aren't they?") == ["cat", "toy", "box"]


def test_english_keeps_numbers_and_splits_hyphens() -> None:
    assert get_analyzer("english")("COVID-19 raised IL-6 by 3.5 fold in 1,000 mice") == [
        "covid", "19", "rais", "il", "6", "3.5", "fold", "1,000", "mice",
    ]


@pytest.mark.parametrize("name", ["english", "lucene"])
def test_it_handles_empty_and_non_ascii(name: str) -> None:
    analyze = get_analyzer(name)
    assert analyze("") == []
    assert analyze("  ,;-- ") == []
    assert analyze("naïve Δ-receptor 中文 😀") != []


def test_unknown_analyzer_lists_known_names() -> None:
    with pytest.raises(ValueError, match="english, lucene"):
        get_analyzer("klingon")
