"""Page text from pdfium's characters: symbol fonts mapped, superscripts and subscripts kept as such.

pdfium's own page text (FPDFText_GetText) drops the size and height of each glyph, so an exponent "10²⁵"
reads "1025", and a raised or lowered glyph often breaks the line ("CO\r\n2\r\n rises"). Here each
character keeps its font size and baseline; lines pdfium split at a script are joined back, and a script
run becomes Unicode superscripts/subscripts where that is unambiguous. The output keeps pdfium's layout
("\r\n" between lines), which the paragraph rebuilder expects.
"""

from __future__ import annotations

import ctypes
import re
from typing import NamedTuple

import pypdfium2.raw as pdfium_c

from .pdf_ligatures import repair_ligatures
from .pdf_symbols import font_family, symbol_text

SUPERSCRIPTS = str.maketrans("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ")
SUBSCRIPTS = str.maketrans("0123456789+-−=()aeoxhklmnpstijruv", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ")
_SUP_CHARS = frozenset("0123456789+-−=()ni")
_SUB_CHARS = frozenset("0123456789+-−=()aeoxhklmnpstijruv")
# Fonts that set mathematics: a script after one of their glyphs is an exponent or an index, not a footnote.
_MATH_FONT = re.compile(r"^(?:[A-Z]{6}\+)?(?:CMMI|CMSY|CMBSY|CMEX|MSAM|MSBM|MT2MI|MT2SY|MT2EX|.*Math)", re.I)
_FOOTNOTE_MARK = re.compile(r"^\d+(?:[,\-–]\d+)*$")  # 13, 1,2 or 3–5 raised right after a word
SCRIPT_SIZE = 0.85  # a glyph at most this fraction of its line's size may be a script
SCRIPT_SHIFT = 0.15  # ... and must sit at least this fraction of the size off the baseline


class Char(NamedTuple):
    """One pdfium character with the geometry the rebuilder needs."""

    text: str
    size: float
    x: float
    y: float
    right: float
    font: str
    generated: bool
    rotated: bool
    index: int = -1  # pdfium's character index on the text page; -1 for a space the rebuilder inserted
    scale: float = 1.0  # the text object's matrix scale: the printed size is size * scale


class TextLine:
    """A visual line: its characters, main font size, baseline, font and horizontal extent."""

    def __init__(self, chars: list[Char]) -> None:
        self.chars = chars
        body = [c for c in chars if not c.generated]
        self.body = body
        sizes: dict[float, int] = {}
        fonts: dict[str, int] = {}
        for c in body:
            sizes[c.size] = sizes.get(c.size, 0) + 1
            fonts[c.font] = fonts.get(c.font, 0) + 1
        self.size: float = round(max(sizes, key=sizes.__getitem__), 1) if sizes else 0.0
        # The size as printed on the page (font size times the matrix scale), which layout judgments compare:
        # `size` compares glyphs within one line, and some producers set every font at size 1 and scale it.
        printed: dict[float, int] = {}
        for c in body:
            printed[round(c.size * c.scale, 1)] = printed.get(round(c.size * c.scale, 1), 0) + 1
        self.printed_size: float = max(printed, key=printed.__getitem__) if printed else 0.0
        self.smallest: float = min(sizes, default=0.0)
        ys = sorted(c.y for c in body if abs(c.size - self.size) < 0.15) or [0.0]
        self.baseline: float = ys[len(ys) // 2]
        self.font: str = max(fonts, key=fonts.__getitem__) if fonts else ""
        self.x0: float = min((c.x for c in body), default=0.0)
        self.x1: float = max((c.right for c in body), default=0.0)
        self.rotated = any(c.rotated for c in body)

    def plain_text(self) -> str:
        """Return the text without its footnote marks: a small glyph raised or lowered off the baseline is a mark,
        a small glyph on the baseline is a small capital ("CiteSee" set as C + ITE + S + EE) and stays."""

        def kept(c: Char) -> bool:
            if c.generated or c.size > SCRIPT_SIZE * self.size:
                return True
            return abs(c.y - self.baseline) < SCRIPT_SHIFT * self.size

        return "".join(c.text for c in self.chars if kept(c))


# The text object of a character, as a plain address: one text object is one text-showing operator, so
# every glyph in it shares a font, size, rise and angle; looking those up once per object keeps this fast.
_TEXT_OBJECT = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
    ctypes.cast(pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p).value
)


def _char_text(code: int) -> str:
    """Return the character of a pdfium code point ('\ufffd' for surrogates and junk)."""
    return chr(code) if 0 <= code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"


def read_chars(textpage: pdfium_c.FPDF_TEXTPAGE) -> list[Char]:
    """Read every character of a text page with its unicode, font, size and position."""
    count = pdfium_c.FPDFText_CountChars(textpage)
    handle = ctypes.cast(textpage, ctypes.c_void_p).value
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    x, y = ctypes.c_double(), ctypes.c_double()
    matrix = pdfium_c.FS_MATRIX()
    buffer = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    chars: list[Char] = []
    segment: list[tuple[int, int]] = []  # (index, code) of the glyphs of the current text object
    current: int | None = None

    def flush() -> None:
        if not segment:
            return
        first, last = segment[0][0], segment[-1][0]
        if current is None:  # generated spaces and line breaks have no text object
            chars.extend(Char(_char_text(code), 0.0, 0.0, 0.0, 0.0, "", True, False, i) for i, code in segment)
            return
        pdfium_c.FPDFText_GetFontInfo(textpage, first, buffer, len(buffer), flags)
        font = buffer.value.decode("utf-8", "replace")
        family = font_family(font)
        size = pdfium_c.FPDFText_GetFontSize(textpage, first)
        scale = _object_scale(current, matrix)
        pdfium_c.FPDFText_GetCharOrigin(textpage, first, x, y)
        pdfium_c.FPDFText_GetCharBox(textpage, last, left, right, bottom, top)
        angle = pdfium_c.FPDFText_GetCharAngle(textpage, first)
        rotated = 0.1 < angle < 6.18  # radians; anything but upright
        texts = [_char_text(code) for _, code in segment]
        if family:
            for k, (index, code) in enumerate(segment):
                error = bool(pdfium_c.FPDFText_HasUnicodeMapError(textpage, index))
                texts[k] = symbol_text(family, code, error) or texts[k]
        else:
            texts = repair_ligatures([code for _, code in segment], texts, font)
        for (index, _code), text in zip(segment, texts, strict=True):
            chars.append(Char(text, size, x.value, y.value, right.value, font, not text.strip(), rotated, index, scale))

    for index in range(count):
        code = pdfium_c.FPDFText_GetUnicode(textpage, index)
        obj = _TEXT_OBJECT(handle, index)
        # A line break pdfium inserts has no text object; a printed glyph at code 13 (OT1's fl) has one.
        line_break = code in (10, 13) and not obj
        if obj != current or line_break:
            flush()
            segment = []
            current = None if line_break else obj
        segment.append((index, code))
    flush()
    return chars


def _object_scale(text_object: int, matrix: pdfium_c.FS_MATRIX) -> float:
    """The scale a text object's matrix applies to its glyphs: word processors often set every font at size 1
    and scale it with the matrix, so the printed size is the font size times this."""
    handle = ctypes.cast(ctypes.c_void_p(text_object), pdfium_c.FPDF_PAGEOBJECT)
    if not pdfium_c.FPDFPageObj_GetMatrix(handle, ctypes.byref(matrix)):
        return 1.0
    scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
    return round(scale, 3) if scale > 1e-6 else 1.0


def split_lines(chars: list[Char]) -> list[TextLine]:
    """Split characters at pdfium's line breaks ("\\r\\n"; a lone "\\r" is a glyph and stays)."""
    lines: list[TextLine] = []
    current: list[Char] = []
    for i, char in enumerate(chars):
        if char.text == "\r" and chars[i + 1 : i + 2] and chars[i + 1].text == "\n":
            continue
        if char.text == "\n":
            lines.append(TextLine(current))
            current = []
        else:
            current.append(char)
    lines.append(TextLine(current))
    return lines


def _continues(line: TextLine, piece: TextLine, last: TextLine) -> bool:
    """Tell whether ``piece`` is a script (or the text after one) pdfium split off ``line``."""
    if not line.body or not piece.body or line.rotated or piece.rotated:
        return False
    size = max(line.size, piece.size)
    if abs(piece.baseline - line.baseline) > 0.6 * size:
        return False
    if not (last.x1 - 0.5 <= piece.x0 <= last.x1 + 1.5 * size):
        return False
    small = min(line.size, piece.size) <= SCRIPT_SIZE * size
    return small or last.size <= SCRIPT_SIZE * line.size


def visual_lines(chars: list[Char]) -> list[TextLine]:
    """Return the page's lines with script pieces joined back to the line they belong to."""
    merged: list[TextLine] = []
    last: TextLine | None = None
    for piece in split_lines(chars):
        if merged and last is not None and _continues(merged[-1], piece, last):
            line = merged[-1]
            gap: list[Char] = []
            if piece.x0 - last.x1 > 0.25 * line.size and line.chars and line.chars[-1].text != " ":
                gap = [Char(" ", 0.0, last.x1, line.baseline, piece.x0, "", True, False)]
            merged[-1] = TextLine(line.chars + gap + piece.chars)
        else:
            merged.append(piece)
        last = piece
    return merged


def _script_kind(char: Char, ref: Char) -> str:
    """Return 'sup', 'sub' or '' for a character, judged against the main-size character before it."""
    if char.generated or not char.text.strip() or char.size > SCRIPT_SIZE * ref.size:
        return ""
    shift = char.y - ref.y
    if abs(shift) > 0.7 * ref.size:  # pdfium joined the next printed line (after a hyphen): not a script
        return ""
    if shift >= SCRIPT_SHIFT * ref.size:
        return "sup"
    if shift <= -SCRIPT_SHIFT * ref.size:
        return "sub"
    return ""


def _script(kind: str, run: str, before: Char | None, after: Char | None = None) -> str:
    """Write one script run: Unicode where every glyph has a form, a caret/underscore in mathematics.

    `before` is the main-size glyph before the run on its line (None after a space or at the line's start), `after`
    the glyph right after it.
    """
    math = before is not None and bool(_MATH_FONT.match(before.font))
    if kind == "sup":
        # An exponent follows a number or a symbol set in a math font; after a word it is a footnote mark.
        if (math or (before is not None and before.text.isdigit())) and set(run) <= _SUP_CHARS:
            return run.translate(SUPERSCRIPTS)
        stuck_after = before is not None and before.text.isalpha()
        stuck_before = before is None and after is not None and after.text.isalpha()
        if not math and (stuck_after or stuck_before) and _FOOTNOTE_MARK.match(run):
            # A footnote or reference mark stuck to a word ("time¹³", "Jain¹,²", "¹Department", "⁸The papers"):
            # raised digits, so they never run into the word as one token and a search for the word finds it.
            return run.translate(SUPERSCRIPTS)
        return f"^{run}" if math and len(run) == 1 else f"^{{{run}}}" if math else run
    if before is not None and before.text.strip() and set(run) <= _SUB_CHARS:
        return run.translate(SUBSCRIPTS)
    return f"_{run}" if math and len(run) == 1 else f"_{{{run}}}" if math else run


def line_text(line: TextLine) -> str:
    """Return a visual line's text with its script runs rewritten."""
    if not line.body or line.smallest > SCRIPT_SIZE * line.size:  # nothing small enough to be a script
        return "".join(c.text for c in line.chars)
    main = [c for c in line.body if c.size > SCRIPT_SIZE * line.size]
    ref = main[0] if main else line.body[0]  # pdfium may join two printed lines: judge each glyph locally
    out: list[str] = []
    run: list[Char] = []
    kind = ""
    before: Char | None = None
    for char in [*line.chars, None]:
        this = _script_kind(char, ref) if char is not None else ""
        if run and this != kind:
            out.append(_script(kind, "".join(c.text for c in run), before, char))
            run = []
        if char is None:
            break
        if this:
            run.append(char)
        else:
            out.append(char.text)
            if not char.generated and char.text.strip():
                before = char
                if (
                    char.size > SCRIPT_SIZE * ref.size
                    or abs(char.y - ref.y) < SCRIPT_SHIFT * ref.size
                    or (abs(char.y - ref.y) > 0.7 * ref.size)
                ):
                    ref = char
            elif char.text == " ":
                before = None
        kind = this
    return "".join(out)


def page_text(textpage: pdfium_c.FPDF_TEXTPAGE) -> tuple[str, list[TextLine]]:
    """Return a page's text in pdfium's layout, and its visual lines."""
    lines = visual_lines(read_chars(textpage))
    return "\r\n".join(line_text(line) for line in lines), lines
