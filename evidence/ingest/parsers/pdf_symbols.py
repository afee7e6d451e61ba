"""Unicode for TeX symbol-font glyphs that pdfium can only report by their byte code.

pdfTeX embeds Computer Modern and AMS symbol fonts whose glyph names ("greaterorsimilar", "circlecopyrt")
are not in the Adobe Glyph List; without a ToUnicode map pdfium falls back to the byte code, so "≳" (msam10
code 0x26) reads as "&" and "≤" (cmsy code 0x14) as a control character. The tables follow the fonts' own
encodings (OMS for cmsy, OMX for cmex, the AMS font tables for msam/msbm).
"""

from __future__ import annotations

import re

# fmt: off
_OMS = dict(zip(range(0x00, 0x80), (
    "−·×∗÷⋄±∓⊕⊖⊗⊘⊙\ufffd○∙"      # 0x0D is the ring of LaTeX's ©, drawn around a separate "c": left unmapped
    "≍≡⊆⊇≤≥⪯⪰∼≈⊂⊃≪≫≺≻"
    "←→↑↓↔↗↘≃⇐⇒⇑⇓⇔↖↙∝"
    "′∞∈∋△▽/↦∀∃¬∅ℜℑ⊤⊥"
    "ℵ𝒜ℬ𝒞𝒟ℰℱ𝒢ℋℐ𝒥𝒦ℒℳ𝒩𝒪"
    "𝒫𝒬ℛ𝒮𝒯𝒰𝒱𝒲𝒳𝒴𝒵∪∩⊎∧∨"
    "⊢⊣⌊⌋⌈⌉{}⟨⟩|‖↕⇕\\≀"
    "√⨿∇∫⊔⊓⊑⊒§†‡¶♣♢♡♠"
), strict=True))
_OMX = dict(zip(range(0x00, 0x30), (
    "()[]⌊⌋⌈⌉{}⟨⟩|‖/\\"
    "()()[]⌊⌋⌈⌉{}⟨⟩/\\"
    "()[]⌊⌋⌈⌉{}⟨⟩/\\/\\"
), strict=True)) | dict(zip(range(0x50, 0x75), (
    "∑∏∫⋃⋂⨄⋀⋁∑∏∫⋃⋂⨄⋀⋁"
    "∐∐^^^~~~[]⌊⌋⌈⌉{}"
    "√√√√√"
), strict=True))
_MSAM = {
    0x03: "□", 0x04: "■", 0x06: "◊", 0x10: "↠", 0x11: "↞", 0x12: "⇇", 0x13: "⇉",
    **dict(zip(range(0x24, 0x38), "≗≿≳⪆⊸∴∵≑≜≾≲⪅⪕⪖⋞⋟≼≦⩽≶", strict=True)),
    **dict(zip(range(0x3B, 0x48), "≓≒≽≧⩾≷⊏⊐⊳⊲⊵⊴★", strict=True)),
}
_MSBM = dict(zip(range(0x41, 0x5B), "𝔸𝔹ℂ𝔻𝔼𝔽𝔾ℍ𝕀𝕁𝕂𝕃𝕄ℕ𝕆ℙℚℝ𝕊𝕋𝕌𝕍𝕎𝕏𝕐ℤ", strict=True))
# fmt: on
_OMS.pop(0x0D)
_SUBSET = re.compile(r"^[A-Z]{6}\+")
# Fonts with no glyph at an ASCII position: any ASCII code pdfium reports for them is a fallback.
_NO_ASCII = {"MSAM": _MSAM, "MSBM": _MSBM}
# Fonts that do hold some ASCII-mapped glyphs ("{", "|"): only flagged or control-code chars are fallbacks.
# MathTime Pro 2 (MT2SYT, MT2SYS) keeps the OMS layout of cmsy.
_FLAGGED_ONLY = {"CMSY": _OMS, "CMBSY": _OMS, "MT2SY": _OMS, "CMEX": _OMX}
_FAMILY = re.compile(r"^(MSAM|MSBM|CMBSY|CMSY|CMEX|MT2SY)[A-Z]?\d*$")


def font_family(font_name: str) -> str:
    """Return a TeX symbol font's family ('MSAM', 'CMSY', ...) or '' for any other font."""
    match = _FAMILY.match(_SUBSET.sub("", font_name).upper())
    return match.group(1) if match else ""


def symbol_text(family: str, code: int, map_error: bool) -> str | None:
    """Return the Unicode of a symbol-font glyph pdfium reported as ``code``, or None to keep it."""
    if family in _NO_ASCII:
        return _NO_ASCII[family].get(code) if code < 0x80 else None
    table = _FLAGGED_ONLY.get(family)
    if table is None or not (map_error or code < 0x20):
        return None
    return table.get(code)
