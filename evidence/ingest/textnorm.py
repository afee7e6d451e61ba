"""Canonical-text normalisation shared by every parser."""

from __future__ import annotations

import re
import unicodedata

# C0 controls except \t and \n, plus DEL; \v and \f are page/line separators, so they become spaces.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_SPACES = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Normalise line endings, drop control characters and apply Unicode NFC."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x0b", " ").replace("\x0c", " ")
    text = _CONTROL.sub("", text)
    return unicodedata.normalize("NFC", text)


def squash(text: str) -> str:
    """Clean the text and collapse every whitespace run into one space."""
    return _SPACES.sub(" ", clean_text(text)).strip()
