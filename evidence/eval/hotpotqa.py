"""HotpotQA files as documents: each question's context paragraphs become mini documents with exact sentence regions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..ingest import ParsedDocument, Region


@dataclass(frozen=True)
class Question:
    """A question over a few documents with gold evidence region indices per document."""

    id: str
    text: str
    docids: tuple[str, ...]
    gold: dict[str, frozenset[int]]
    answer: str = ""


def load_hotpotqa(path: Path) -> tuple[list[ParsedDocument], list[Question]]:
    """Turn each question's context paragraphs into mini documents with exact sentence regions."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    docs: list[ParsedDocument] = []
    questions: list[Question] = []
    for qi, item in enumerate(raw):
        qid = str(item.get("id") or item.get("_id") or f"hotpot-{qi}")
        gold_pairs = set(zip(item["supporting_facts"]["title"], item["supporting_facts"]["sent_id"], strict=True))
        docids, gold = [], {}
        for pi, (title, sents) in enumerate(zip(item["context"]["title"], item["context"]["sentences"], strict=True)):
            # HotpotQA sentences carry their leading space: the paragraph is their concatenation.
            text = "".join(sents)
            regions, pos = [], 0
            for s in sents:
                lead = len(s) - len(s.lstrip())
                body = s.strip()
                if body:
                    regions.append(Region("sentence", pos + lead, pos + lead + len(body), title))
                pos += len(s)
            docid = f"{qid}/{pi}"
            para = Region("paragraph", 0, len(text), title)
            docs.append(ParsedDocument(title, text, "hotpotqa", docid, [para, *regions]))
            docids.append(docid)
            # Map gold sent_id (index into the raw list) to the kept sentence regions.
            kept = [i for i, s in enumerate(sents) if s.strip()]
            gold[docid] = frozenset(kept.index(s) for t, s in gold_pairs if t == title and s in kept)
        questions.append(Question(qid, str(item["question"]), tuple(docids), gold, str(item.get("answer", ""))))
    return docs, questions
