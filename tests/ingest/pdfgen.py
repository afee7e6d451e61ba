"""Write small PDFs by hand for parser tests: base-14 fonts, sized runs, text rise and rotated stamps."""

from __future__ import annotations

from dataclasses import dataclass, field

# Resource name -> font dictionary. "FM" imitates a TeX AMS symbol font (msam10) without a ToUnicode map:
# a reader falls back to the byte codes, so its "greater or similar" glyph (code 38) reads as "&".
FONTS = {
    "F1": "/Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding",
    "F2": "/Type /Font /Subtype /Type1 /BaseFont /Times-Bold /Encoding /WinAnsiEncoding",
    "F3": "/Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding",
    "F4": "/Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding",
    "F5": "/Type /Font /Subtype /Type1 /BaseFont /Times-Italic /Encoding /WinAnsiEncoding",
    "FM": "/Type /Font /Subtype /Type1 /BaseFont /MSAM10 /FirstChar 38 /LastChar 46 /Widths [778 0 0 0 0 0 0 0 778]",
    # TeX text fonts without a ToUnicode map: OT1 (cmr10) keeps ff..ffl at 0x0B-0x0F, T1 (sfrm1000) at 0x1B-0x1F;
    # the typewriter font cmtt10 has other glyphs there.
    **{
        name: f"/Type /Font /Subtype /Type1 /BaseFont /{base} /FirstChar 0 /LastChar 127 /Widths [{' 500' * 128} ]"
        for name, base in (("FO", "CMR10"), ("FC", "SFRM1000"), ("FW", "CMTT10"))
    },
}


@dataclass
class Run:
    """A stretch of text in one font, size and rise (positive rise: superscript)."""

    text: str
    size: float = 10.0
    font: str = "F1"
    rise: float = 0.0


@dataclass
class Line:
    """Runs drawn one after another from (x, y); rotated lines read bottom to top, like arXiv stamps."""

    x: float
    y: float
    runs: list[Run] = field(default_factory=list)
    rotated: bool = False
    unit_font: bool = False  # as word processors write it: every font at size 1, scaled by the text matrix


def text_line(x: float, y: float, text: str, size: float = 10.0, font: str = "F1") -> Line:
    """Return a line of one run."""
    return Line(x, y, [Run(text, size, font)])


def _string(text: str) -> str:
    """Return a PDF literal string in WinAnsi bytes (Latin-1 is close enough for tests)."""
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").replace("\r", "\\r")
    return "(" + escaped + ")"


def _content(lines: list[Line]) -> bytes:
    """Return one page's content stream."""
    ops: list[str] = []
    for line in lines:
        scale = line.runs[0].size if line.unit_font else 1
        matrix = f"0 1 -1 0 {line.x} {line.y} Tm" if line.rotated else f"{scale} 0 0 {scale} {line.x} {line.y} Tm"
        ops.append(f"BT {matrix}")
        for run in line.runs:
            size = run.size / scale
            ops.append(f"/{run.font} {size:g} Tf {run.rise / scale:g} Ts {_string(run.text)} Tj")
        ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def make_pdf(pages: list[list[Line]], info: dict[str, str] | None = None, encrypt_dict: str = "") -> bytes:
    """Return the bytes of a PDF with the given pages, Info dictionary and (fake) /Encrypt entry."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree's number is known
    font_ids = {name: add(f"<< {spec} >>".encode("latin-1")) for name, spec in FONTS.items()}
    fonts = " ".join(f"/{name} {num} 0 R" for name, num in font_ids.items())
    tree = add(b"")
    kids = []
    for lines in pages:
        stream = _content(lines)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << {fonts} >> >>"
                f" /Contents {content} 0 R >>".encode("latin-1")
            )
        )
    objects[tree - 1] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode()
    info_id = add(("<< " + " ".join(f"/{k} {_string(v)}" for k, v in (info or {}).items()) + " >>").encode("latin-1"))
    encrypt_id = add(encrypt_dict.encode("latin-1")) if encrypt_dict else 0
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root {catalog} 0 R /Info {info_id} 0 R"
    if encrypt_id:
        trailer += f" /Encrypt {encrypt_id} 0 R /ID [<{'ab' * 16}> <{'ab' * 16}>]"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


# A standard security handler entry whose user password is not empty: readers must ask for it.
PASSWORD_ENCRYPT = f"<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <{'5f' * 32}> /U <{'3c' * 32}> >>"
