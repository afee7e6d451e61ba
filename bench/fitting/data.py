"""Labelled development data for the judge as pure examples, with a fixed fit / held-out split.

SciFact train claims sorted by id: the first 80% fit the sentence and document heads, the last 20%
are held out. HotpotQA (30 dev questions) and QASPER (25 dev questions) are never used for fitting
the SciFact heads; their own heads are reported by 5-fold cross-validation grouped by question.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evidence.eval.hotpotqa import Question
from evidence.eval.hotpotqa import load_hotpotqa as read_hotpotqa
from evidence.ingest.parsers import parse_file
from evidence.ingest.textnorm import squash
from evidence.ingest.types import ParsedDocument, Region

DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data"
CACHE_DIR = Path(__file__).resolve().parents[2] / ".data" / "cache" / "judge"
FIT_FRACTION = 0.8


@dataclass(frozen=True)
class Claim:
    """A SciFact claim with its cited documents and gold rationale sentence indices (region order)."""

    id: int
    text: str
    cited: tuple[str, ...]
    rationales: dict[str, frozenset[int]] = field(default_factory=dict)


def sha256_file(path: Path) -> str:
    """Return the hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sentence_regions(doc: ParsedDocument) -> list[Region]:
    """Return the document's sentence regions in text order."""
    return doc.regions_of("sentence")


def paragraph_regions(doc: ParsedDocument) -> list[Region]:
    """Return the document's paragraph regions in text order."""
    return doc.regions_of("paragraph")


def load_scifact_corpus(path: Path | None = None) -> list[ParsedDocument]:
    """Parse the SciFact corpus with the project's own parser (one document per abstract)."""
    path = path or DATA_DIR / "scifact" / "corpus.jsonl"
    return parse_file(path.name, path.read_bytes())


def _region_index(doc: ParsedDocument | None, sentence: int) -> int | None:
    """Map an abstract sentence index to its sentence region index (empty sentences were dropped)."""
    if doc is None:
        return None
    dropped = doc.metadata.get("dropped_sentences") or []
    if sentence in dropped:
        return None
    return sentence - sum(1 for d in dropped if d < sentence)


def load_scifact_claims(docs: Sequence[ParsedDocument], path: Path | None = None) -> list[Claim]:
    """Load SciFact claims sorted by id, rationale indices mapped onto sentence regions."""
    path = path or DATA_DIR / "scifact" / "claims_train.json"
    by_id = {d.docid: d for d in docs}
    raw = json.loads(path.read_text(encoding="utf-8"))
    claims = []
    for item in sorted(raw, key=lambda c: int(c["id"])):
        rationales: dict[str, frozenset[int]] = {}
        for docid, sets in (item.get("evidence") or {}).items():
            idx = {_region_index(by_id.get(str(docid)), s) for ev in sets for s in ev["sentences"]}
            rationales[str(docid)] = frozenset(i for i in idx if i is not None)
        cited = tuple(str(d) for d in item.get("cited_doc_ids") or [])
        claims.append(Claim(int(item["id"]), str(item["claim"]), cited, rationales))
    return claims


def split_claims(claims: Sequence[Claim]) -> tuple[list[Claim], list[Claim]]:
    """Return (fit, held_out): claims sorted by id, first 80% and last 20%."""
    ordered = sorted(claims, key=lambda c: c.id)
    cut = round(len(ordered) * FIT_FRACTION)
    return ordered[:cut], ordered[cut:]


def load_hotpotqa(path: Path | None = None) -> tuple[list[ParsedDocument], list[Question]]:
    """Return the HotpotQA dev questions' context paragraphs as mini documents, and the questions."""
    return read_hotpotqa(path or DATA_DIR / "hotpotqa" / "hotpot-dev-distractor-30.json")


def load_qasper(path: Path | None = None) -> tuple[list[ParsedDocument], list[Question]]:
    """Parse QASPER papers with the project's parser and map gold evidence onto paragraph regions."""
    path = path or DATA_DIR / "qasper" / "qasper-dev-sample.json"
    docs = parse_file(path.name, path.read_bytes())
    raw = json.loads(path.read_text(encoding="utf-8"))
    questions: list[Question] = []
    for doc in docs:
        keys = {squash(doc.text[r.start : r.end]): i for i, r in enumerate(paragraph_regions(doc))}
        for qa in raw[doc.docid].get("qas") or []:
            gold: set[int] = set()
            for ans in qa.get("answers") or []:
                for ev in ans["answer"].get("evidence") or []:
                    i = keys.get(squash(ev))
                    if i is not None:  # "FLOAT SELECTED" tables and figures are not paragraphs
                        gold.add(i)
            qid = str(qa.get("question_id") or f"{doc.docid}/{len(questions)}")
            questions.append(Question(qid, str(qa["question"]), (doc.docid,), {doc.docid: frozenset(gold)}))
    return docs, questions


def cached_embeddings(
    name: str, key: str, texts: Sequence[str], embed: Callable[[Sequence[str]], np.ndarray], model_id: str
) -> np.ndarray:
    """Return embeddings of texts from .data/cache (keyed by model, data and texts), computing them when missing."""
    # The model id is part of the key: vectors of another model (e.g. the fp32 or legacy int8 one) never come back.
    material = model_id.encode() + b"\0" + key.encode() + b"\0" + "\x1f".join(texts).encode()
    digest = hashlib.sha256(material).hexdigest()[:16]
    path = CACHE_DIR / f"{name}-{digest}.npy"
    if path.is_file():
        return np.load(path)
    vectors = np.asarray(embed(texts), dtype=np.float32)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, vectors)
    tmp.replace(path)
    return vectors


def region_texts(docs: Sequence[ParsedDocument], kind: str) -> tuple[list[str], np.ndarray]:
    """Return the texts of every region of one kind and the per-document offsets into that list."""
    texts: list[str] = []
    offsets = [0]
    for doc in docs:
        texts.extend(doc.text[r.start : r.end] for r in doc.regions_of(kind))
        offsets.append(len(texts))
    return texts, np.asarray(offsets, dtype=np.int64)


def unit_text(doc: ParsedDocument) -> str:
    """Return the text a whole short document is embedded as (title plus body, as passages are)."""
    return f"{doc.title}\n{doc.text}" if doc.title else doc.text


def embed_collection(
    name: str,
    data_file: Path,
    docs: Sequence[ParsedDocument],
    queries: Sequence[str],
    kind: str,
    embed: Callable[[Sequence[str]], np.ndarray],
    model_id: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (unit vectors, region vectors, region offsets per doc, query vectors), cached on disk per model."""
    key = sha256_file(data_file)
    texts, offsets = region_texts(docs, kind)
    units = cached_embeddings(f"{name}-units", key, [unit_text(d) for d in docs], embed, model_id)
    regions = cached_embeddings(f"{name}-{kind}", key, texts, embed, model_id)
    qvecs = cached_embeddings(f"{name}-queries", key, list(queries), embed, model_id)
    return units, regions, offsets, qvecs
