"""JATS XML (PubMed Central) parser: title, ids, abstract and body sections."""

from __future__ import annotations

from lxml import etree

from ..builder import DocumentBuilder
from ..textnorm import squash
from ..types import IngestError, ParsedDocument
from .common import file_stem

# Subtrees whose text is not prose: formulas, tables and figures (captions are taken separately).
SKIPPED = frozenset({"table-wrap", "table", "fig", "disp-formula", "math", "graphic", "alternatives"})
CAPTIONED = frozenset({"fig", "table-wrap"})


def _local(el: etree._Element) -> str:
    """Return an element's tag without namespace ('' for comments)."""
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _text(el: etree._Element) -> str:
    """Return an element's prose text, skipping formulas, tables and figures."""
    parts: list[str] = [el.text or ""]
    for child in el:
        if _local(child) not in SKIPPED and _local(child):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _children(el: etree._Element, name: str) -> list[etree._Element]:
    """Return the direct children with a given local name."""
    return [c for c in el if _local(c) == name]


def _find(el: etree._Element, path: str) -> etree._Element | None:
    """Find the first descendant along a '/'-separated path of local names."""
    found = el.xpath("./" + "/".join(f"*[local-name()='{step}']" for step in path.split("/")))
    return found[0] if found else None


def _walk(builder: DocumentBuilder, el: etree._Element, section: str) -> None:
    """Add the paragraphs, headings and captions under ``el`` in document order."""
    for child in el:
        name = _local(child)
        if name == "sec":
            title = _children(child, "title")
            heading = squash(_text(title[0])) if title else ""
            if heading:
                builder.heading(heading)
            else:
                builder.section = section
            _walk(builder, child, heading or section)
            builder.section = section
        elif name == "p":
            builder.paragraph(_text(child))
            _walk_floats(builder, child)
        elif name in CAPTIONED:
            _captions(builder, child)
        elif name in {"list", "list-item", "boxed-text", "disp-quote", "statement", "def-list", "def-item"}:
            _walk(builder, child, section)


def _captions(builder: DocumentBuilder, float_el: etree._Element) -> None:
    """Add the caption title and paragraphs of a figure or table as paragraphs."""
    for caption in float_el.iter("{*}caption", "caption"):
        for part in caption:
            if _local(part) in {"p", "title"}:
                builder.paragraph(_text(part))


def _walk_floats(builder: DocumentBuilder, para: etree._Element) -> None:
    """Add captions of figures and tables nested inside a paragraph, after it."""
    for child in para.iter("{*}fig", "fig", "{*}table-wrap", "table-wrap"):
        _captions(builder, child)


def parse_jats(filename: str, data: bytes) -> list[ParsedDocument]:
    """Parse a JATS article into sections and paragraphs."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise IngestError(filename, f"is not well-formed XML ({exc.msg}): fix it or export it again") from exc
    if _local(root) != "article":
        raise IngestError(
            filename, "is XML but not a JATS article (no <article> root): upload the article's JATS file (.nxml)"
        )
    meta = _find(root, "front/article-meta")
    ids: dict[str, str] = {}
    title = ""
    builder = DocumentBuilder()
    if meta is not None:
        for aid in _children(meta, "article-id"):
            ids.setdefault(aid.get("pub-id-type", ""), squash(aid.text or ""))
        title_el = _find(meta, "title-group/article-title")
        title = squash(_text(title_el)) if title_el is not None else ""
        for abstract in _children(meta, "abstract"):
            if abstract.get("abstract-type") in {"graphical", "teaser", "toc"}:
                continue
            builder.heading("Abstract")
            _walk(builder, abstract, "Abstract")
    body = _find(root, "body")
    if body is not None:
        builder.section = ""
        _walk(builder, body, "")
    for ack in root.xpath("./*[local-name()='back']/*[local-name()='ack']"):
        builder.heading("Acknowledgments")
        _walk(builder, ack, "Acknowledgments")
    pmc = ids.get("pmc") or ids.get("pmcid") or ""
    if pmc and not pmc.upper().startswith("PMC"):
        pmc = f"PMC{pmc}"
    docid = pmc or ids.get("pmid") or ids.get("doi") or None
    journal = _find(root, "front/journal-meta/journal-title-group/journal-title")
    metadata = {k: v for k, v in ids.items() if k in {"pmc", "pmid", "doi"} and v}
    if journal is not None:
        metadata["journal"] = squash(_text(journal))
    return [builder.build(title=title or file_stem(filename), source_format="jats", docid=docid, metadata=metadata)]
