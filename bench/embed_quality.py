"""Check that a new embedding model keeps retrieval quality: cosine to the stored model's vectors and dense nDCG@10.

Usage: .venv/bin/python bench/embed_quality.py [--claims 300] [--distractors 1700] [--cases scifact,realqa]
    [--old fdq8r1] [--new minilm-l6-v2-fdq8] [--reference fp32]
Cases (one JSON line each): SciFact claims against a corpus subset (every abstract a claim cites as evidence plus
random others), and the realqa dev questions against the passages and sentences of the 13 real papers. Each model
ranks with its own query and document vectors; "mixed" ranks new query vectors against old document vectors (a
collection not yet re-embedded). Both models' document and query vectors are also compared with the reference's
(default: the fp32 graph the int8 models are quantized from).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from pathlib import Path

import django
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
django.setup()  # the parsers and chunking import the models

from embed_models import NAMES, named_embedder  # noqa: E402

from evidence.encode.embedding import MODEL_ID, Embedder  # noqa: E402
from evidence.eval.metrics import ndcg_at_k  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def ranked_ndcg(queries: np.ndarray, docs: np.ndarray, ids: list[str], gains: list[dict[str, float]]) -> float:
    """Return mean nDCG@10 of cosine rankings of docs for each query."""
    scores = queries @ docs.T
    values = []
    for row, gain in zip(scores, gains, strict=True):
        order = np.argsort(-row, kind="stable")[:10]
        values.append(ndcg_at_k([ids[i] for i in order], gain, 10))
    return float(np.mean(values))


def cosine_stats(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cos = np.sum(a * b, axis=1)
    return {"mean": round(float(cos.mean()), 4), "p01": round(float(np.quantile(cos, 0.01)), 4),
            "min": round(float(cos.min()), 4)}  # fmt: skip


def compare(name: str, old: Embedder, new: Embedder, reference: Embedder, queries: list[str], docs: list[str],
            ids: list[str], gains: list[dict[str, float]]) -> dict[str, object]:  # fmt: skip
    """Embed with the models and report cosines (old to new, each to the reference) and nDCG."""
    timings = {}
    vectors = {}
    for model in (old, new, reference):
        started = time.perf_counter()
        vectors[model.model_id] = (model.embed(queries), model.embed(docs))
        timings[model.model_id] = round(time.perf_counter() - started, 1)
    (q_old, d_old), (q_new, d_new) = vectors[old.model_id], vectors[new.model_id]
    q_ref, d_ref = vectors[reference.model_id]
    return {
        "case": name,
        "queries": len(queries),
        "docs": len(docs),
        "cosine_docs": cosine_stats(d_old, d_new),
        "cosine_queries": cosine_stats(q_old, q_new),
        f"cosine_docs_{old.model_id}_to_{reference.model_id}": cosine_stats(d_old, d_ref),
        f"cosine_docs_{new.model_id}_to_{reference.model_id}": cosine_stats(d_new, d_ref),
        f"cosine_queries_{new.model_id}_to_{reference.model_id}": cosine_stats(q_new, q_ref),
        f"ndcg10_{old.model_id}": round(ranked_ndcg(q_old, d_old, ids, gains), 4),
        f"ndcg10_{new.model_id}": round(ranked_ndcg(q_new, d_new, ids, gains), 4),
        f"ndcg10_{reference.model_id}": round(ranked_ndcg(q_ref, d_ref, ids, gains), 4),
        "ndcg10_mixed": round(ranked_ndcg(q_new, d_old, ids, gains), 4),
        "embed_s": timings,
    }


def scifact(claims_n: int, distractors: int) -> tuple[list[str], list[str], list[str], list[dict[str, float]]]:
    corpus = {}
    with (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[str(doc["doc_id"])] = f"{doc['title']}\n{' '.join(doc['abstract'])}"
    claims = [c for c in json.loads((DATA / "scifact" / "claims_train.json").read_text()) if c["evidence"]]
    claims = random.Random(0).sample(claims, min(claims_n, len(claims)))
    relevant = {doc for c in claims for doc in c["evidence"] if doc in corpus}
    others = sorted(set(corpus) - relevant)
    ids = sorted(relevant) + random.Random(1).sample(others, min(distractors, len(others)))
    gains = [{doc: 1.0 for doc in c["evidence"]} for c in claims]
    return [c["claim"] for c in claims], [corpus[i] for i in ids], ids, gains


def realqa(kind: str) -> tuple[list[str], list[str], list[str], list[dict[str, float]]]:
    """Questions with evidence; units are passages (kind "passage") or sentence regions; gain 1 where a quote lies."""
    from evidence.ingest.chunking import make_passages
    from evidence.ingest.parsers import parse_file
    from evidence.ingest.store import passage_index_text

    papers = DATA / "papers"
    files = [*sorted((papers / "pdf").glob("*.pdf")), *sorted((papers / "jats").glob("*.nxml")),
             *sorted((papers / "s2orc_json").glob("*.json"))]  # fmt: skip
    texts, ids, spans = [], [], []
    for path in files:
        for doc in parse_file(path.name, path.read_bytes()):
            units = (
                [(p.start, p.end) for p in make_passages(doc)]
                if kind == "passage"
                else [(r.start, r.end) for r in doc.regions if r.kind == "sentence"]
            )
            for n, (start, end) in enumerate(units):
                body = doc.text[start:end]
                texts.append(passage_index_text(doc.title, body) if kind == "passage" else body)
                ids.append(f"{path.name}#{n}")
                spans.append((doc.text, start, end))
    questions = [q for q in json.loads((DATA / "realqa" / "dev.json").read_text()) if q["evidence"]]
    gains = []
    for q in questions:
        gain: dict[str, float] = {}
        for ev in q["evidence"]:
            pattern = re.compile(r"\s+".join(re.escape(w) for w in ev["quote"].split()))
            for unit_id, (text, start, end) in zip(ids, spans, strict=True):
                for match in pattern.finditer(text):
                    if match.start() < end and match.end() > start:
                        gain[unit_id] = 1.0
        gains.append(gain)
    return [q["question"] for q in questions], texts, ids, gains


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--distractors", type=int, default=1700)
    parser.add_argument("--cases", default="scifact,realqa", help="comma-separated: scifact, realqa")
    parser.add_argument("--old", choices=NAMES, default="fdq8r1", help="the model stored before")
    parser.add_argument("--new", choices=NAMES, default=MODEL_ID)
    parser.add_argument("--reference", choices=NAMES, default="fp32")
    args = parser.parse_args()
    cases = set(args.cases.split(","))
    old, new, reference = (named_embedder(name) for name in (args.old, args.new, args.reference))
    if "scifact" in cases:
        subset = scifact(args.claims, args.distractors)
        print(json.dumps(compare("scifact_subset", old, new, reference, *subset)), flush=True)
    for kind in ("passage", "sentence") if "realqa" in cases else ():
        print(json.dumps(compare(f"realqa_{kind}s", old, new, reference, *realqa(kind))), flush=True)


if __name__ == "__main__":
    main()
