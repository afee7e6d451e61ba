"""The reader model through the product path: `make bench-reader`.

    .venv/bin/python bench/reader_bench.py [--questions N] [--file dev2.json] [--collection NAME]

Asks realqa's questions over the whole collection of their 20 papers (ingested once, as `manage.py ingest` does,
into the collection `--collection`, then prepared for reading) with the dual system, through the same code as
`manage.py evaluate papers`, the reader model answering on this machine's cores. Then the oracle: the reader given
each answerable question's gold sentence among 4 other sentences of the same paper (the gold quotes of the paper's
other questions first, then its sentences in order), scored strictly; a right answer whose numbers differ from the
gold's is counted as a near miss. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
os.environ["EVIDENCE_PREPARE_IN_BACKGROUND"] = "false"  # the bench prepares its collection itself
DATA = ROOT.parent / "shared" / "data" / "realqa"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3) if ordered else 0.0


def collection_for(name: str):
    from django.contrib.auth import get_user_model

    from evidence.ingest import jobs
    from evidence.models import Collection

    owner, _ = get_user_model().objects.get_or_create(username="bench-reader")
    collection = Collection.objects.filter(owner=owner, name=name).first()
    if collection is None:
        collection = Collection.objects.create(owner=owner, name=name)
        papers = sorted((DATA / "papers").glob("*.pdf"))
        jobs.process_all(jobs.create_job(collection, [(p.name, p.read_bytes()) for p in papers]))
    return owner, collection


def oracle(questions: list[dict], collection) -> dict:
    """The reader on the gold sentence among 4 others of the same paper (threshold 0: every answer shown)."""
    from evidence.answers.layer import ShortAnswer
    from evidence.answers.ranker_rows import Sentence
    from evidence.eval.metrics_papers import answer_correct, normalize_tokens
    from evidence.models import Document
    from evidence.reader import reading
    from evidence.text.sentence_spans import split_sentences

    quotes: dict[str, list[str]] = {}
    for q in questions:
        for e in q["evidence"][:1]:
            quotes.setdefault(e["docid"], []).append(e["quote"])
    right = near = total = 0
    seconds = []
    for index, q in enumerate(questions):
        if not q["evidence"]:
            continue
        gold = q["evidence"][0]
        text = Document.objects.get(collection=collection, docid=gold["docid"]).text
        others = [s for s in quotes[gold["docid"]] if s != gold["quote"]]
        others += [text[a:b] for a, b in split_sentences(text) if 40 < b - a < 400 and text[a:b] not in others][:8]
        position = index % 5  # the gold sentence's place among the five, varied
        texts = [*others[:position], gold["quote"], *others[position:4]]
        sentences = [Sentence(t, i, 1.0, 0.5) for i, t in enumerate(texts)]
        empty = ShortAnswer("", None, 0, 0, 0.0, False, "name")
        started = time.monotonic()
        result = reading.read(q["question"], sentences, empty, True, threshold=0.0)
        seconds.append(time.monotonic() - started)
        answer = result.short.display if result.short.text else ""
        ok = answer_correct(answer, q["answers"], q["type"], strict=True)
        numbers = set(re.findall(r"\d+(?:\.\d+)?", q["answers"][0].replace(",", "")))
        said = set(re.findall(r"\d+(?:\.\d+)?", answer.replace(",", "")))
        near += ok and bool(numbers) and not numbers <= said and bool(normalize_tokens(answer))
        right += ok
        total += 1
    return {"oracle_strict": round(right / max(total, 1), 3), "oracle_questions": total, "oracle_near_misses": near,
            "oracle_reader_p50_s": percentile(seconds, 0.5)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=None, help="ask only the first N questions")
    parser.add_argument("--file", default="dev2.json")
    parser.add_argument("--collection", default="bench-reader-realqa2")
    parser.add_argument("--no-oracle", action="store_true")
    args = parser.parse_args()
    import django

    django.setup()
    from evidence.eval.papers_bench import Papers
    from evidence.models import EvaluationItem
    from evidence.reader import runtime
    from evidence.services.evaluation_runner import evaluate

    owner, collection = collection_for(args.collection)
    questions = json.loads((DATA / args.file).read_text())[: args.questions or None]
    summary = evaluate(Papers(DATA / args.file, collection.name), owner, "dual",
                       {"searcher": "hybrid", "quiet_events": True}, limit=args.questions, fresh=True)  # fmt: skip
    items = list(EvaluationItem.objects.filter(evaluation_id=summary["evaluation"]).select_related("run"))
    latency = [float(i.metrics.get("latency_s", 0.0)) for i in items]
    readings = [((i.run.answer or {}).get("signals") or {}).get("reading") or {} for i in items]
    reader_s = [float(r["seconds"]) for r in readings if r.get("backend") == "model"]
    backend = runtime.backend()
    line = {
        "case": "reader", "file": args.file, "questions": len(items),
        "question_p50_s": percentile(latency, 0.5), "question_p95_s": percentile(latency, 0.95),
        "reader_p50_s": percentile(reader_s, 0.5), "reader_p95_s": percentile(reader_s, 0.95),
        "read_by_model": len(reader_s),
        "fallbacks": sorted({str(r.get("fallback")) for r in readings if r.get("fallback")}),
        "evaluated_tokens_p50": percentile([float(r.get("evaluated_tokens", 0)) for r in readings if r], 0.5),
        "shown_strict": summary.get("answer_strict"), "evidence_hit": summary.get("evidence_hit"),
        "confident_wrong": summary.get("confident_wrong"), "withheld": summary.get("withheld"),
        "evaluation": summary["evaluation"],
    }  # fmt: skip
    if not args.no_oracle:
        line |= oracle(questions, collection)
    line |= {
        "load_s": getattr(backend, "load_s", None),
        "rss_mb": round(backend.rss_mb(), 1) if backend is not None and hasattr(backend, "rss_mb") else None,
        "threads": getattr(backend, "threads", None),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "targets": {"question_p50_s": 6, "question_p95_s": 12, "reader_p95_s": 8, "oracle_strict": 0.8},
    }
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
