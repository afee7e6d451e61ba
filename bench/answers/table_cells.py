"""How often the cell of the column a table question names is its gold answer: `named_cell` on the gold row.

    .venv/bin/python bench/answers/table_cells.py [--rows]

For every table question of the in-sample sets (bench/data/tables_dev.json and tables_dev2A.json, and the table
questions of dev2 part A, dev4, dev5 and dev6; never dev3 or dev2 part B), the gold paper is read as the reader reads
it (`score_paper_sentences`: each row with its table's caption and header), the row holding the gold quote is found,
and the reader's column rule (`evidence.text.named_cell`) is asked for the cell the question names. A row counts as
right when that cell is a gold answer under the strict scorer, wrong when it is another cell, and
unnamed when the rule names none (the model's own pick then stands). No model call: the rule alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.answers.common import DATA, ROOT, django_setup

SETS = (
    ("tables_dev", "realqa-dev", ROOT / "bench" / "data" / "tables_dev.json"),
    ("tables_dev2A", "realqa2-dev", ROOT / "bench" / "data" / "tables_dev2A.json"),
    ("dev2", "realqa2-dev", DATA / "realqa" / "dev2.json"),
    ("dev4", "realqa4-dev", ROOT / "bench" / "data" / "dev4.json"),
    ("dev5", "realqa5-dev", ROOT / "bench" / "data" / "dev5.json"),
    ("dev6", "realqa6-dev", ROOT / "bench" / "data" / "dev6.json"),
)


def question_rows(owner: str = "demo") -> list[dict]:
    from bench.answers.data import HELD_OUT
    from evidence.agent.core import load_document_units
    from evidence.agent.readers.general import score_paper_sentences
    from evidence.eval.metrics_papers import answer_correct, locate_quote
    from evidence.models import Collection
    from evidence.text import named_cell, split_frame

    rows = []
    for name, collection_name, file in SETS:
        collection = Collection.objects.filter(name=collection_name, owner__username=owner).first()
        if collection is None or not file.is_file():
            print(json.dumps({"skipped": name}))
            continue
        for q in json.loads(file.read_text()):
            docid = q["evidence"][0]["docid"] if q.get("evidence") else ""
            if q["type"] != "table" or not docid or (name == "dev2" and docid in HELD_OUT):
                continue
            papers = load_document_units(collection.pk, [docid], "sentence", with_vectors=True)
            text = collection.documents.get(docid=docid).text
            gold = [(a, b) for e in q["evidence"] if e["docid"] == docid for a, b in locate_quote(text, e["quote"])]
            blocks, s = score_paper_sentences(q["question"], papers)
            at = next((i for i, b in enumerate(blocks) if any(b.start < e and a < b.end for a, e in gold)), None)
            row = {"set": name, "qid": str(q["qid"]), "question": q["question"], "gold": q["answers"][0]}
            if at is None:
                rows.append({**row, "outcome": "no row"})
                continue
            header = split_frame(str(s["tables"][at]))[1]
            cell = named_cell(q["question"], blocks[at].text, header) if header else None
            said = blocks[at].text[cell[0] : cell[1]] if cell else ""
            right = bool(cell) and answer_correct(said, q["answers"], "table", strict=True)
            outcome = "unnamed" if cell is None else ("right" if right else "wrong")
            rows.append({**row, "outcome": outcome, "cell": said, "row": blocks[at].text[:160], "header": header})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="also print one line per question")
    args = parser.parse_args()
    django_setup()
    rows = question_rows()
    for name in dict.fromkeys(r["set"] for r in rows):
        group = [r for r in rows if r["set"] == name]
        counts = {k: sum(r["outcome"] == k for r in group) for k in ("right", "wrong", "unnamed", "no row")}
        print(json.dumps({"set": name, "questions": len(group), **counts}))
    if args.rows:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
