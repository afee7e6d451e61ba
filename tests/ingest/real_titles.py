"""The printed titles of the real PDFs in ../shared/data, for the title tests and `bench/pdf_titles.py`."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from tests.real_data import SHARED_DATA as DATA


def known_titles() -> dict[Path, str]:
    """The real title of each PDF (the longest where questions spell it more than one way)."""
    titles: dict[Path, str] = {}
    for question in json.loads((DATA / "realqa" / "dev2.json").read_text()):
        for evidence in question.get("evidence") or []:
            path = DATA / "realqa" / "papers" / f"{evidence['docid']}.pdf"
            titles[path] = max(titles.get(path, ""), question["paper_title"], key=len)
    for pdf in sorted((DATA / "papers" / "pdf").glob("*.pdf")):
        s2orc = pdf.with_suffix(".s2orc.json")
        if s2orc.exists():
            titles[pdf] = json.loads(s2orc.read_text())["title"]
    return dict(sorted(titles.items()))


def comparable(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", unicodedata.normalize("NFKC", text).lower()).split())
