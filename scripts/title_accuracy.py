"""Measure document-title accuracy of the parsers and print one JSON line.

Compared against gold titles (normalized: case, whitespace, punctuation):
- every real PDF in papers/pdf against the title of its .s2orc.json sibling, once as parsed and once with the
  PDF's metadata hidden (so the first-page layout alone must find the title);
- generated first pages laid out like real papers (tests/ingest/paper_pdfs.py), against the title they print;
- every S2ORC JSON and JATS file against its own title field (files that carry none are listed, not scored).

Usage: .venv/bin/python scripts/title_accuracy.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pypdfium2 as pdfium  # noqa: E402
from lxml import etree  # noqa: E402

from evidence.ingest.parsers import parse_file  # noqa: E402
from tests.ingest.paper_pdfs import synthetic_papers  # noqa: E402


def normalize(title: str) -> str:
    """Lower-case, drop punctuation and collapse whitespace."""
    text = unicodedata.normalize("NFKC", title).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


@contextmanager
def metadata_hidden():
    """Make every PDF report empty metadata, as many real PDFs do."""
    original = pdfium.PdfDocument.get_metadata_value
    pdfium.PdfDocument.get_metadata_value = lambda self, key: ""  # type: ignore[method-assign]
    try:
        yield
    finally:
        pdfium.PdfDocument.get_metadata_value = original  # type: ignore[method-assign]


def parsed_title(name: str, data: bytes) -> str:
    """Return the title the ingest parser gives a file (an error message when it fails)."""
    try:
        return parse_file(name, data)[0].title
    except Exception as exc:  # a failure counts as a wrong title, with the reason shown
        return f"<error: {exc}>"


def s2orc_gold(obj: dict[str, Any]) -> str:
    """Return the title an S2ORC object carries in any schema version ('' when none)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    for value in (obj.get("title"), meta.get("title")):
        if isinstance(value, str) and value.strip():
            return value
    return ""


def jats_gold(data: bytes) -> str:
    """Return the JATS article-title text of the article's own metadata."""
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    found = root.xpath("//*[local-name()='article-meta']/*[local-name()='title-group']/*[local-name()='article-title']")
    return "".join(found[0].itertext()) if found else ""


def row(group: str, name: str, gold: str, got: str) -> dict[str, Any]:
    """Return one per-file result."""
    return {"group": group, "file": name, "ok": normalize(gold) == normalize(got), "gold": gold, "got": got}


def measure(data_dir: Path) -> dict[str, Any]:
    """Score every file and return the summary."""
    rows: list[dict[str, Any]] = []
    unscored: list[str] = []
    for path in sorted((data_dir / "papers/pdf").glob("*.pdf")):
        gold = json.loads(path.with_suffix(".s2orc.json").read_text())["title"]
        rows.append(row("pdf_real", path.name, gold, parsed_title(path.name, path.read_bytes())))
        with metadata_hidden():
            rows.append(row("pdf_real_no_metadata", path.name, gold, parsed_title(path.name, path.read_bytes())))
    for name, data, gold in synthetic_papers():
        rows.append(row("pdf_generated", name, gold, parsed_title(name, data)))
    for path in sorted((data_dir / "papers/s2orc_json").glob("*.json")):
        gold = s2orc_gold(json.loads(path.read_text()))
        if not gold:
            unscored.append(f"{path.name}: no title field in the file")
            continue
        rows.append(row("s2orc", path.name, gold, parsed_title(path.name, path.read_bytes())))
    for path in sorted((data_dir / "papers/jats").glob("*.nxml")):
        rows.append(row("jats", path.name, jats_gold(path.read_bytes()), parsed_title(path.name, path.read_bytes())))
    groups: dict[str, list[int]] = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(int(r["ok"]))
    return {
        "accuracy": round(sum(r["ok"] for r in rows) / len(rows), 3),
        "correct": sum(r["ok"] for r in rows),
        "scored": len(rows),
        "by_group": {g: f"{sum(v)}/{len(v)}" for g, v in groups.items()},
        "unscored": unscored,
        "files": rows,
    }


def main() -> None:
    """Parse arguments, measure, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    print(json.dumps(measure(args.data), ensure_ascii=False))


if __name__ == "__main__":
    main()
