"""Check a table-cell question file (tables_dev*.json) against the text the app stored for its papers.

    .venv/bin/python bench/data/check_tables.py bench/data/tables_dev.json realqa-dev
    .venv/bin/python bench/data/check_tables.py bench/data/tables_dev2A.json realqa2-dev
    .venv/bin/python bench/data/check_tables.py FILE COLLECTION --owner demo --texts DIR   # DIR/<docid>.txt instead

Checks, per question (the logic of check_dev3.py, whose helpers it reuses): the fields; the type is "table";
at least one quote; every quote occurs in its document's stored text (runs of whitespace matched loosely, a digit
in plain, raised or lowered form, as the scorer locates quotes); the gold answer (the first one) occurs in one of
the quotes as a normalized token sequence (lowercase, punctuation and articles dropped, digits split from letters);
the first quote (the table row) occurs once in its document, so that the evidence range is unambiguous. Prints, as
notes that do not fail, documents where the gold answer also occurs outside the quotes (a candidate for another
quote, or a value that is repeated in another cell). Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_dev3 import contains, locate, texts_from_db, texts_from_dir, tokens

FIELDS = {"qid", "question", "answers", "type", "paper_title", "evidence"}


def check(items: list[dict], texts: dict[str, str]) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    seen: set[str] = set()
    for q in items:
        qid = q.get("qid", "?")
        missing = FIELDS - set(q)
        if missing:
            problems.append(f"{qid}: missing fields {sorted(missing)}")
            continue
        if qid in seen:
            problems.append(f"{qid}: duplicate qid")
        seen.add(qid)
        if q["type"] != "table":
            problems.append(f"{qid}: type {q['type']!r}, expected 'table'")
        answers, evidence = q["answers"], q["evidence"]
        if not answers or not all(isinstance(a, str) and a.strip() for a in answers):
            problems.append(f"{qid}: empty answers")
            continue
        if not evidence:
            problems.append(f"{qid}: no evidence")
            continue
        gold = tokens(answers[0])
        quote_tokens = []
        for i, ev in enumerate(evidence):
            docid, quote = ev.get("docid"), ev.get("quote", "")
            if docid not in texts:
                problems.append(f"{qid}: unknown docid {docid!r}")
                continue
            hits = locate(texts[docid], quote)
            if not hits:
                problems.append(f"{qid}: quote not found in {docid}: {quote[:90]!r}")
            elif i == 0 and len(hits) > 1:
                problems.append(f"{qid}: the row quote occurs {len(hits)} times in {docid}: {quote[:90]!r}")
            quote_tokens.append(tokens(quote))
        if not any(contains(qt, gold) for qt in quote_tokens):
            problems.append(f"{qid}: the gold answer {answers[0]!r} does not occur in its quotes")
        docid = evidence[0].get("docid")
        if docid in texts:
            rest = texts[docid]
            for ev in evidence:
                for start, end in locate(rest, ev.get("quote", "")):
                    rest = rest[:start] + " " * (end - start) + rest[end:]
            if contains(tokens(rest), gold):
                notes.append(f"{qid}: {answers[0]!r} also occurs in {docid} outside the quotes")
    return problems, notes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("questions", help="the questions file, e.g. bench/data/tables_dev.json")
    ap.add_argument("collection", help="the collection it is asked over, e.g. realqa-dev")
    ap.add_argument("--owner", default="demo")
    ap.add_argument("--texts", help="folder of <docid>.txt files instead of the database")
    args = ap.parse_args()

    items = json.loads(Path(args.questions).read_text(encoding="utf-8"))
    texts = texts_from_dir(Path(args.texts)) if args.texts else texts_from_db(args.collection, args.owner)
    if not texts:
        print(f"no documents found (collection {args.collection!r}, owner {args.owner!r}): ingest the papers first")
        return 1
    n_docs = len(texts)
    cited = {ev.get("docid") for q in items for ev in q.get("evidence", [])}
    texts = {d: t for d, t in texts.items() if d in cited}  # only the papers the questions are about
    problems, notes = check(items, texts)
    by_doc = collections.Counter(ev["docid"] for q in items for ev in q.get("evidence", [])[:1])
    n_quotes = sum(len(q.get("evidence", [])) for q in items)
    print(f"{len(items)} questions, {n_quotes} quotes, {len(texts)} of the {n_docs} documents in {args.collection}")
    print("by paper: " + ", ".join(f"{d} {n}" for d, n in sorted(by_doc.items())))
    for n in notes:
        print("note " + n)
    for p in problems:
        print("FAIL " + p)
    print("OK: every quote found, every gold answer in a quote" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
