"""Ligatures a TeX font prints at control-character codes, read back as the letters they join.

A Type 1 font in TeX's OT1 layout (cmr10, cmbx10, ...) keeps ff, fi, fl, ffi and ffl at codes 0x0B to 0x0F, and
one in the T1 (Cork) layout (ec, lm, sfrm) at 0x1B to 0x1F. Without a ToUnicode map pdfium falls back to the
byte code, so "effective" read as "e", a vertical tab, "ective" and was stored as "e ective". A control code of
those ranges beside a Latin letter, in a font that is neither a math or symbol font (cmmi10 and txfonts' rtxmi
keep epsilon at 0x0F: "µε" in a strain unit) nor a typewriter font (arrows and quotes there), is the ligature of
its layout.
"""

from __future__ import annotations

import re

OT1 = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl"}
T1 = {0x1B: "ff", 0x1C: "fi", 0x1D: "fl", 0x1E: "ffi", 0x1F: "ffl"}
LIGATURES = OT1 | T1
_NOT_TEXT = re.compile(
    r"CMTT|SFTT|LMMONO|COURIER|MONO|TYPEWRITER"  # typewriter
    r"|CMMI|CMBSY|CMSY|CMEX|MSAM|MSBM|MT2|MATH|SYMBOL|TXMI|TXSY|TXEX|PXMI|PXSY|PXEX|EUFM|EUSM|STMARY|WASY|DINGBAT",
    re.I,
)
_LATIN = re.compile(r"[A-Za-z]")


def repair_ligatures(codes: list[int], texts: list[str], font: str) -> list[str]:
    """Return the texts of one text object's glyphs with each control-code ligature beside a letter spelled out."""
    if not any(code in LIGATURES for code in codes) or _NOT_TEXT.search(font):
        return texts
    repaired = list(texts)
    for k, code in enumerate(codes):
        ligature = LIGATURES.get(code)
        if ligature is None:
            continue
        before = texts[k - 1][-1:] if k else ""
        after = texts[k + 1][:1] if k + 1 < len(texts) else ""
        if _LATIN.fullmatch(before) or _LATIN.fullmatch(after):
            repaired[k] = ligature
    return repaired
