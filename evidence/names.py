"""Person names as papers print them: family and given parts, and a folded form for comparing them."""

from __future__ import annotations

import re
import unicodedata

# Lower-case words that belong to the family name after them: "Madeleine van Zuylen", "Ivo H. M. van Stokkum".
PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "del", "di", "la", "le", "du", "dos", "ter", "bin"})


def name_parts(name: str) -> tuple[str, str]:
    """Split a name into (family, given): "Ivo H. M. van Stokkum" -> ("van Stokkum", "Ivo H. M."); a name written
    "Family, Given" is split at its comma."""
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return family, given
    words = name.split()
    i = len(words) - 1
    while i > 0 and words[i - 1].lower() in PARTICLES:
        i -= 1
    return " ".join(words[i:]), " ".join(words[:i])


def fold(text: str) -> str:
    """Return text lower-cased with accents and punctuation dropped, for comparing names and titles."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return " ".join(re.sub(r"[^\w\s]", " ", "".join(c for c in text if not unicodedata.combining(c))).split())
