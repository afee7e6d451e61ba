"""Where the sentence that states the answer ranks inside its paper: recall@N of the whole-paper reader's ranking.

    .venv/bin/python bench/answers/sentence_recall.py [--k 6] [--rows]

For every answerable question of realqa `dev.json` (collection realqa-dev), `dev2.json` (realqa2-dev, split
into part A and the held-out part B by paper, bench/answers/data.py), `bench/data/dev4.json` (realqa4-dev) and the
held-out `bench/data/dev3.json` (realqa3-dev; a set whose collection or file is missing is skipped), the gold
paper is read as the product reads it (`readers/general.read_whole`: every body sentence scored for the question,
in the order the reader takes them: the fitted sentence ranker's, judge/params/sentence_rank.json, else the
hand-set score) and the gold quotes are located in its stored text. A question counts at N when a sentence among
the N best overlaps a gold range (the reader's input is the best `reading_k()`, then trimmed to a word budget:
`in_reader_input`). Rows say where the missed sentence was: its section label, and whether it was skipped as front
matter / running head / reference (not a candidate at all).
One JSON line per set, then (--rows) one per question.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.answers.common import DATA, ROOT, django_setup

KS = (1, 3, 5, 6, 8, 10, 15, 20, 30)
SETS = (
    ("dev", "realqa-dev", DATA / "realqa" / "dev.json"),
    ("dev2", "realqa2-dev", DATA / "realqa" / "dev2.json"),
    ("dev3", "realqa3-dev", ROOT / "bench" / "data" / "dev3.json"),  # held out
    ("dev4", "realqa4-dev", ROOT / "bench" / "data" / "dev4.json"),
    ("dev5", "realqa5-dev", ROOT / "bench" / "data" / "dev5.json"),  # in-sample after its first evaluation
    ("dev6", "realqa6-dev", ROOT / "bench" / "data" / "dev6.json"),  # in-sample after its first evaluation
    ("dev7", "realqa7-dev", ROOT / "bench" / "data" / "dev7.json"),  # in-sample after its first evaluation
    ("dev8", "realqa8-dev", ROOT / "bench" / "data" / "dev8.json"),  # in-sample after its first evaluation
    ("dev9", "realqa9-dev", ROOT / "bench" / "data" / "dev9.json"),  # in-sample after its first evaluation
    ("dev10", "realqa10-dev", ROOT / "bench" / "data" / "dev10.json"),  # held out
    ("dev11", "realqa11-dev", ROOT / "bench" / "data" / "dev11.json"),  # held out
)
PARTS = ("dev", "dev2A", "dev4", "dev5", "dev6", "dev7", "dev8", "dev9", "dev2B", "dev3", "dev10", "dev11")


def question_rows(owner: str = "demo") -> list[dict]:
    import numpy as np
    from django.conf import settings

    from bench.answers.data import HELD_OUT
    from evidence.agent.core import load_document_units
    from evidence.agent.readers.general import reading_k
    from evidence.agent.readers.general import score_paper_sentences as read_whole
    from evidence.answers.ranker_rows import Sentence
    from evidence.eval.metrics_papers import locate_quote
    from evidence.models import Collection
    from evidence.reader.reading import sentences_within

    rows = []
    for name, collection_name, file in SETS:
        if not file.is_file():
            print(json.dumps({"skipped": name, "why": f"no {file}"}))
            continue
        collection = Collection.objects.filter(name=collection_name, owner__username=owner).first()
        if collection is None:
            print(json.dumps({"skipped": name, "why": f"no collection {collection_name!r} of {owner!r}"}))
            continue
        for q in json.loads(file.read_text()):
            if q["type"] == "unanswerable" or not q.get("evidence"):
                continue
            docid = q["evidence"][0]["docid"]
            papers = load_document_units(collection.pk, [docid], "sentence", with_vectors=True)
            if not papers:
                continue
            text = collection.documents.get(docid=docid).text
            gold = [(a, b) for e in q["evidence"] if e["docid"] == docid for a, b in locate_quote(text, e["quote"])]
            blocks, s = read_whole(q["question"], papers)
            order = [int(i) for i in np.argsort(-s["rank"], kind="stable")] if blocks else []
            labels = [any(b.start < e and a < b.end for a, e in gold) for b in blocks]
            best = [Sentence(blocks[i].text, rank, 0.0, 0.0) for rank, i in enumerate(order[: reading_k()])]
            reads = sentences_within(best, int(settings.EVIDENCE_READER_SENTENCES))
            hits = [r for r, i in enumerate(order) if any(blocks[i].start < b and a < blocks[i].end for a, b in gold)]
            all_blocks = papers[0].blocks
            gold_blocks = [b for b in all_blocks if any(b.start < e and a < b.end for a, e in gold)]
            part = name if name != "dev2" else ("dev2B" if docid in HELD_OUT else "dev2A")
            first = gold_blocks[0] if gold_blocks else None
            rows.append(
                {
                    "set": part,
                    "qid": str(q["qid"]),
                    "type": q["type"],
                    "rank": hits[0] if hits else None,
                    "reader_input": reads,
                    "top_words": [len(blocks[i].text.split()) for i in order[:12]],  # to try other budgets
                    "located": bool(gold),
                    "candidate": bool(gold_blocks) and bool(hits),
                    "section": first.label if first else "",
                    "location": location_of(first) if first else "unlocated",
                    "sentences": len(blocks),
                    "question": q["question"],
                    "paper": docid,
                    "features": s["features"].tolist() if blocks else [],
                    "labels": labels,
                }
            )
    return rows


FOOTNOTE = re.compile(r"^\s*(?:[¹²³⁴⁵⁶⁷⁸⁹⁰*†‡§]|\d{1,2}(?=[A-Z]))")


def location_of(block) -> str:
    """Where a gold sentence stands: a table row, a footnote, the paper's summary (abstract, introduction,
    conclusion) or the body."""
    from evidence.judge.sentences import summary_section, table_row_share

    if table_row_share(block.text) >= 0.3 or (len(block.text) > 600 and table_row_share(block.text) >= 0.2):
        return "table"
    if FOOTNOTE.match(block.text):
        return "footnote"
    return "summary" if summary_section(block.label) else "body"


def by(rows: list[dict], key: str, k: int) -> dict:
    """recall@k and in the reader's input, per value of a row's key (question type or location)."""
    out = {}
    for value in sorted({r[key] for r in rows}):
        group = [r for r in rows if r[key] == value]
        out[value] = {
            "n": len(group),
            f"recall@{k}": round(sum(r["rank"] is not None and r["rank"] < k for r in group) / len(group), 3),
            "in_reader_input": round(
                sum(r["rank"] is not None and r["rank"] < r["reader_input"] for r in group) / len(group), 3
            ),
        }
    return out


def summary(rows: list[dict], k: int) -> dict:
    n = len(rows)
    out = {"n": n, "located": sum(r["located"] for r in rows)}
    for at in KS:
        out[f"recall@{at}"] = round(sum(r["rank"] is not None and r["rank"] < at for r in rows) / max(n, 1), 3)
    out["in_reader_input"] = round(
        sum(r["rank"] is not None and r["rank"] < r["reader_input"] for r in rows) / max(n, 1), 3
    )
    out["reader_input_mean"] = round(sum(r["reader_input"] for r in rows) / max(n, 1), 2)
    out["not_a_candidate"] = sum(r["located"] and r["rank"] is None for r in rows)
    out[f"missed_at_{k}"] = [r["qid"] for r in rows if r["rank"] is None or r["rank"] >= k]
    out["by_type"] = by(rows, "type", k)
    out["by_location"] = by(rows, "location", k)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=6, help="the reader's input size to list misses at")
    parser.add_argument("--rows", action="store_true")
    parser.add_argument("--owner", default="demo")
    args = parser.parse_args()
    django_setup()
    rows = question_rows(args.owner)
    for part in PARTS:
        if any(r["set"] == part for r in rows):
            print(json.dumps({"set": part, **summary([r for r in rows if r["set"] == part], args.k)}))
    if args.rows:
        for row in rows:
            print(json.dumps({k: v for k, v in row.items() if k not in ("features", "labels")}))


if __name__ == "__main__":
    main()
