"""S2ORC JSON parser for the schema versions seen in the wild (2019, 2020, 2021, doc2json)."""

from __future__ import annotations

import re
from typing import Any

from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import ParsedDocument
from .common import file_stem

_ABSTRACT_LABEL = re.compile(r"^\s*abstract\b\s*[:.\-—]?\s*(?=\S)", re.I)
PARSE_KEYS = ("latex_parse", "pdf_parse", "grobid_parse")


def is_s2orc(obj: Any) -> bool:
    """Tell whether a JSON object looks like one S2ORC paper."""
    return isinstance(obj, dict) and "paper_id" in obj and ("body_text" in obj or any(k in obj for k in PARSE_KEYS))


def _parse_section(obj: dict[str, Any]) -> dict[str, Any]:
    """Return the dict that holds abstract/body_text: the best full-text parse, or the paper itself."""
    for key in PARSE_KEYS:  # LaTeX parses are cleaner than PDF parses when both exist
        candidate = obj.get(key)
        if isinstance(candidate, dict) and candidate.get("body_text"):
            return candidate
    for key in PARSE_KEYS:
        candidate = obj.get(key)
        if isinstance(candidate, dict) and candidate.get("abstract"):
            return candidate
    return obj


def _paragraphs(value: Any) -> list[dict[str, Any]]:
    """Normalise an S2ORC paragraph list (or a bare string) to [{text, section}] dicts."""
    if isinstance(value, str):
        return [{"text": value, "section": ""}] if value.strip() else []
    if isinstance(value, list):
        return [dict(p) if isinstance(p, dict) else {"text": str(p)} for p in value]  # copies: callers relabel
    return []


def _add_paragraphs(builder: DocumentBuilder, paragraphs: list[dict[str, Any]], default: str) -> None:
    """Add paragraphs, emitting a heading whenever the section name changes."""
    current: str | None = None
    for para in paragraphs:
        section = squash(str(para.get("section") or "")) or default
        if section != current:
            current = section
            if section:
                builder.heading(section)
            else:
                builder.section = ""
        builder.paragraph(str(para.get("text") or ""))


def parse_s2orc_object(obj: dict[str, Any], filename: str) -> ParsedDocument:
    """Build one document from one S2ORC paper object."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    source = _parse_section(obj)
    abstract = _paragraphs(source.get("abstract")) or _paragraphs(obj.get("abstract"))
    if not abstract:
        abstract = _paragraphs(meta.get("abstract"))
    builder = DocumentBuilder()
    for para in abstract:
        para["section"] = "Abstract"  # one label for every abstract paragraph, whatever the source said
    if abstract:
        # GROBID keeps the printed label: "Abstract:This paper investigates ..." duplicates the heading.
        abstract[0]["text"] = _ABSTRACT_LABEL.sub("", str(abstract[0].get("text") or ""), count=1)
    _add_paragraphs(builder, abstract, "Abstract")
    _add_paragraphs(builder, _paragraphs(source.get("body_text")), "")
    _add_paragraphs(builder, _paragraphs(source.get("back_matter")), "")
    title = squash(str(obj.get("title") or meta.get("title") or "")) or file_stem(filename)
    metadata = {
        k: meta.get(k) or obj.get(k)
        for k in ("year", "doi", "pmc_id", "pubmed_id", "arxiv_id", "acl_id", "venue")
        if isinstance(meta.get(k) or obj.get(k), str | int)
    }
    docid = str(obj["paper_id"]) if obj.get("paper_id") not in (None, "") else None
    return builder.build(title=title, source_format="s2orc", docid=docid, metadata=metadata)
