"""A Python rendering of Lucene's English analysis chain, as Anserini indexes with by default.

StandardTokenizer (UAX#29 word breaks) -> EnglishPossessiveFilter -> LowerCaseFilter ->
StopFilter (Lucene's 33 English stop words) -> PorterStemFilter.

The tokenizer implements the UAX#29 rules that matter for English and scientific text: letters and
digits join (``h2o``, ``5mg``); a MidLetter/MidNumLet/apostrophe between two letters joins
(``u.s``, ``don't``, ``a:b``); a MidNum/MidNumLet/apostrophe between two digits joins (``3.5``,
``1,000``); underscores join; hyphens and other punctuation break; each Han ideograph and hiragana
character is its own token, so is each emoji; combining marks stay inside their word. Not covered:
the Hebrew double-quote rule and scripts newer than Lucene 9.9's Unicode tables.
"""

import re

from evidence.retrieval.porter import porter_stem

# EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
_LUCENE_STOP_TEXT = (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with"
)
LUCENE_STOPWORDS = frozenset(_LUCENE_STOP_TEXT.split())

MAX_TOKEN_LENGTH = 255  # StandardTokenizer's default; longer words are cut into pieces of this size

# Word characters plus the Extend/Format characters UAX#29 keeps inside a word (combining marks,
# soft hyphen, zero-width joiners); a word starts with a letter, digit or underscore.
_W = r"[\w\u00ad\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\ufe20-\ufe2f]"
_LETTER = r"[^\W\d_]"
_MID_NUM_LET = r".\u2018\u2019\u2024\ufe52\uff07\uff0e'"
_MID_LETTER = r":\u00b7\u0387\u05f4\u2027\ufe13\ufe55\uff1a" + _MID_NUM_LET
_MID_NUM = r",;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\ufe50\ufe54\uff0c\uff1b" + _MID_NUM_LET
# Characters Lucene 9.9's StandardTokenizer emits as tokens of their own although Python does not
# count them as word characters: emoji and pictographs (©, ®, ™, ↔, ☺, ...), CJK radicals, squared
# katakana. Measured against the tokenizer itself, code point by code point.
_SYMBOL = (
    "[\u00a9\u00ae\u02c2-\u02c5\u02d2-\u02d7\u02de-\u02df\u02ed\u02ef-\u02ff\u055b-\u055c\u055e\u05f3\u066b"
    "\u109e-\u109f\u19de-\u19df\u1aa0-\u1aa6\u1aa8-\u1aad\u203c\u2049\u2122\u2194-\u2199\u21a9-\u21aa"
    "\u231a-\u231b\u2328\u2388\u23cf\u23e9-\u23f3\u23f8-\u23fa\u24b6-\u24e9\u25aa-\u25ab\u25b6\u25c0"
    "\u25fb-\u25fe\u2600-\u2605\u2607-\u2612\u2614-\u2685\u2690-\u2705\u2708-\u2712\u2714\u2716\u271d"
    "\u2721\u2728\u2733-\u2734\u2744\u2747\u274c\u274e\u2753-\u2755\u2757\u2763-\u2767\u2795-\u2797"
    "\u27a1\u27b0\u27bf\u2934-\u2935\u2b05-\u2b07\u2b1b-\u2b1c\u2b50\u2b55\u2e80-\u2e99\u2e9b-\u2ef3"
    "\u2f00-\u2fd5\u3030\u303d\u309b-\u309c\u30a0\u3297\u3299\u32d0-\u32fe\u3300-\u3357"
    "\U0001f000-\U0001f0ff\U0001f10d-\U0001f10f\U0001f12f-\U0001f149\U0001f150-\U0001f169"
    "\U0001f16c-\U0001f189\U0001f18e\U0001f191-\U0001f19a\U0001f1ad-\U0001f1e5\U0001f200-\U0001f20f"
    "\U0001f21a\U0001f22f\U0001f232-\U0001f23a\U0001f23c-\U0001f23f\U0001f249-\U0001f53d"
    "\U0001f546-\U0001f64f\U0001f680-\U0001f6ff\U0001f774-\U0001f77f\U0001f7d5-\U0001f7ff"
    "\U0001f80c-\U0001f80f\U0001f848-\U0001f84f\U0001f85a-\U0001f85f\U0001f888-\U0001f88f"
    "\U0001f8ae-\U0001f8ff\U0001f90c-\U0001f93a\U0001f93c-\U0001f945\U0001f947-\U0001faff]"
)
# an emoji with its variation selector / skin tone, and ZWJ sequences of them, is one token
_EMOJI = rf"{_SYMBOL}[\ufe0f\U0001f3fb-\U0001f3ff]*(?:\u200d{_SYMBOL}[\ufe0f\U0001f3fb-\U0001f3ff]*)*"
_TOKEN_RE = re.compile(
    rf"{_EMOJI}|\w{_W}*(?:(?<={_LETTER})[{_MID_LETTER}](?={_LETTER}){_W}+|(?<=\d)[{_MID_NUM}](?=\d){_W}+)*"
)
# Han ideographs (with compatibility and extension blocks) and hiragana break on both sides; other
# numbers (superscripts, subscripts, fractions, circled digits) break words and are dropped.
_SINGLE_RE = re.compile(r"([\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f])")
_OTHER_NUMBER_RE = re.compile(
    r"[\u00b2\u00b3\u00b9\u00bc-\u00be\u09f4-\u09f9\u0b72-\u0b77\u0bf0-\u0bf2\u0c78-\u0c7e\u0d58-\u0d5e"
    r"\u0d70-\u0d78\u0f2a-\u0f33\u1369-\u137c\u17f0-\u17f9\u2070\u2074-\u2079\u2080-\u2089\u2150-\u215f"
    r"\u2189\u2460-\u249b\u24ea-\u24ff\u2776-\u2793\u2cfd\u3192-\u3195\u3220-\u3229\u3248-\u324f"
    r"\u3251-\u325f\u3280-\u3289\u32b1-\u32bf\U00010107-\U00010133\U0001f100-\U0001f10c]"
)
_POSSESSIVE_QUOTES = frozenset("'\u2019\uff07")


def _java_lower(token: str) -> str:
    """Lower-case code point by code point, as Java's Character.toLowerCase does (no final sigma)."""
    if token.isascii():
        return token.lower()
    return "".join(c.lower()[0] for c in token)


def standard_tokenize(text: str) -> list[str]:
    """Split text into words following StandardTokenizer's UAX#29 rules (case preserved)."""
    if not text.isascii():
        text = _OTHER_NUMBER_RE.sub(" ", _SINGLE_RE.sub(r" \1 ", text))
    tokens = []
    for tok in _TOKEN_RE.findall(text):
        if not tok.strip("_"):
            continue  # StandardTokenizer emits only words with a letter, digit or ideograph
        if len(tok) > MAX_TOKEN_LENGTH:
            tokens.extend(tok[i : i + MAX_TOKEN_LENGTH] for i in range(0, len(tok), MAX_TOKEN_LENGTH))
        else:
            tokens.append(tok)
    return tokens


def strip_possessive(token: str) -> str:
    """Drop a trailing 's (any of Lucene's three apostrophes, either case of s)."""
    if len(token) >= 2 and token[-1] in "sS" and token[-2] in _POSSESSIVE_QUOTES:
        return token[:-2]
    return token


def lucene_analyze(text: str) -> list[str]:
    """Analyze text as Lucene's/Anserini's default English analyzer does."""
    out = []
    for tok in standard_tokenize(text):
        tok = _java_lower(strip_possessive(tok))
        if tok and tok not in LUCENE_STOPWORDS:
            out.append(porter_stem(tok))
    return out
