"""The original Porter stemmer as Lucene's PorterStemFilter applies it.

This is Martin Porter's reference implementation (not Snowball's "porter" and not Porter2): it
differs from the 1980 paper in the three places the reference code does (``bli -> ble`` instead of
``abli -> able``, the extra ``logi -> log`` rule, and words of at most two letters left alone), which
is what Lucene ships and Anserini indexes with.
"""

from functools import lru_cache

_VOWELS = frozenset("aeiou")


class _Word:
    """Mutable stemming state: the buffer ``b``, its end ``k`` and the suffix start ``j``."""

    __slots__ = ("b", "j", "k")

    def __init__(self, word: str) -> None:
        self.b = list(word)
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        """Return whether b[i] is a consonant ('y' after a consonant counts as a vowel)."""
        ch = self.b[i]
        if ch in _VOWELS:
            return False
        if ch == "y":
            return True if i == 0 else not self.cons(i - 1)
        return True

    def m(self) -> int:
        """Count the vowel-consonant sequences in b[0..j]."""
        n, i, j = 0, 0, self.j
        while True:
            if i > j:
                return n
            if not self.cons(i):
                break
            i += 1
        i += 1
        while True:
            while True:
                if i > j:
                    return n
                if self.cons(i):
                    break
                i += 1
            i += 1
            n += 1
            while True:
                if i > j:
                    return n
                if not self.cons(i):
                    break
                i += 1
            i += 1

    def vowel_in_stem(self) -> bool:
        """Return whether b[0..j] holds a vowel."""
        return any(not self.cons(i) for i in range(self.j + 1))

    def doublec(self, j: int) -> bool:
        """Return whether b[j-1..j] is a double consonant."""
        return j >= 1 and self.b[j] == self.b[j - 1] and self.cons(j)

    def cvc(self, i: int) -> bool:
        """Return whether b[i-2..i] is consonant-vowel-consonant and b[i] is not w, x or y."""
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        """Return whether b[0..k] ends with s, setting j to the start of the suffix minus one."""
        n = len(s)
        o = self.k - n + 1
        if o < 0 or "".join(self.b[o : self.k + 1]) != s:
            return False
        self.j = self.k - n
        return True

    def setto(self, s: str) -> None:
        """Replace b[j+1..k] with s."""
        del self.b[self.j + 1 :]
        self.b.extend(s)
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        """Replace the suffix with s when the stem has measure > 0."""
        if self.m() > 0:
            self.setto(s)

    def text(self) -> str:
        """Return the current stem."""
        return "".join(self.b[: self.k + 1])


# (penultimate letter -> ordered (suffix, replacement)); the first suffix that matches decides,
# even when its measure test then fails, exactly as the reference code's switch/break does.
_STEP3 = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
_STEP4 = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
_STEP5 = {
    "a": ("al",),
    "c": ("ance", "ence"),
    "e": ("er",),
    "i": ("ic",),
    "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"),
    "s": ("ism",),
    "t": ("ate", "iti"),
    "u": ("ous",),
    "v": ("ive",),
    "z": ("ize",),
}


def _step1(w: _Word) -> None:
    """Remove plurals and -ed/-ing."""
    if w.b[w.k] == "s":
        if w.ends("sses"):
            w.k -= 2
        elif w.ends("ies"):
            w.setto("i")
        elif w.b[w.k - 1] != "s":
            w.k -= 1
    if w.ends("eed"):
        if w.m() > 0:
            w.k -= 1
    elif (w.ends("ed") or w.ends("ing")) and w.vowel_in_stem():
        w.k = w.j
        if w.ends("at"):
            w.setto("ate")
        elif w.ends("bl"):
            w.setto("ble")
        elif w.ends("iz"):
            w.setto("ize")
        elif w.doublec(w.k):
            if w.b[w.k] not in "lsz":
                w.k -= 1
        elif w.m() == 1 and w.cvc(w.k):
            w.setto("e")


def _step2(w: _Word) -> None:
    """Turn a terminal y into i when there is another vowel in the stem."""
    if w.ends("y") and w.vowel_in_stem():
        w.b[w.k] = "i"


def _replace_first(w: _Word, rules: tuple[tuple[str, str], ...]) -> None:
    """Apply the first rule whose suffix matches (measure > 0 permitting)."""
    for suffix, repl in rules:
        if w.ends(suffix):
            w.r(repl)
            return


def _step3(w: _Word) -> None:
    """Map double suffixes to single ones (-ization -> -ize, ...)."""
    if w.k == 0:
        return
    _replace_first(w, _STEP3.get(w.b[w.k - 1], ()))


def _step4(w: _Word) -> None:
    """Handle -ic-, -full, -ness and the like."""
    _replace_first(w, _STEP4.get(w.b[w.k], ()))


def _step5(w: _Word) -> None:
    """Remove -ant, -ence and the like when the measure is > 1."""
    if w.k == 0:
        return
    ch = w.b[w.k - 1]
    if ch == "o":
        matched = (w.ends("ion") and w.j >= 0 and w.b[w.j] in "st") or w.ends("ou")
    else:
        matched = any(w.ends(s) for s in _STEP5.get(ch, ()))
    if matched and w.m() > 1:
        w.k = w.j


def _step6(w: _Word) -> None:
    """Remove a final -e and reduce -ll when the measure allows."""
    w.j = w.k
    if w.b[w.k] == "e":
        a = w.m()
        if a > 1 or (a == 1 and not w.cvc(w.k - 1)):
            w.k -= 1
    if w.b[w.k] == "l" and w.doublec(w.k) and w.m() > 1:
        w.k -= 1


@lru_cache(maxsize=200_000)
def porter_stem(word: str) -> str:
    """Stem one lower-cased word with the original Porter algorithm (Lucene's PorterStemmer)."""
    if len(word) <= 2:
        return word
    w = _Word(word)
    for step in (_step1, _step2, _step3, _step4, _step5, _step6):
        step(w)
    return w.text()
