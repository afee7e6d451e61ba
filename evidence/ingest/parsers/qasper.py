"""QASPER JSON parser: one document per paper, one paragraph region per QASPER paragraph."""

from __future__ import annotations

from typing import Any

from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import ParsedDocument


def is_qasper(obj: Any) -> bool:
    """Tell whether a JSON object is a QASPER {paper_id: paper} mapping."""
    return isinstance(obj, dict) and bool(obj) and all(isinstance(p, dict) and "full_text" in p for p in obj.values())


def parse_qasper_paper(paper_id: str, paper: dict[str, Any]) -> ParsedDocument:
    """Build one document from a QASPER paper; the questions and answers are never included."""
    builder = DocumentBuilder()
    abstract = squash(str(paper.get("abstract") or ""))
    if abstract:
        builder.heading("Abstract")
        builder.paragraph(abstract)
    sections: list[str] = []
    for section in paper.get("full_text") or []:
        name = squash(str(section.get("section_name") or ""))
        sections.append(name)
        # "Method ::: Model" is a nested heading: show the innermost part, label with the full path.
        builder.heading(name.split(":::")[-1], section=name)
        for para in section.get("paragraphs") or []:
            # Whitespace-normalised text equals the squashed paragraph, so evidence strings map back.
            builder.paragraph(str(para))
    title = squash(str(paper.get("title") or "")) or f"QASPER paper {paper_id}"
    metadata = {"sections": sections, "questions": len(paper.get("qas") or [])}
    return builder.build(title=title, source_format="qasper", docid=str(paper_id), metadata=metadata)


def parse_qasper(obj: dict[str, Any]) -> list[ParsedDocument]:
    """Build one document per paper of a QASPER mapping."""
    return [parse_qasper_paper(pid, paper) for pid, paper in obj.items()]
