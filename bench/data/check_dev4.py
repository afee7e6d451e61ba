"""Check bench/data/dev4.json against the text the app stored for its papers.

    .venv/bin/python bench/data/check_dev4.py                      # texts from the database (collection realqa4-dev)
    .venv/bin/python bench/data/check_dev4.py --collection NAME --owner demo
    .venv/bin/python bench/data/check_dev4.py --texts DIR          # texts from DIR/<docid>.txt instead

Checks, per question: the fields and the type; unanswerable questions have the answer "unanswerable" and no
evidence, the others at least one quote; every quote occurs in its document's stored text (runs of whitespace
matched loosely, and a digit in plain, raised or lowered form, as the scorer locates quotes); the gold answer
or one of its variants occurs in one of the quotes as a normalized token sequence (lowercase, punctuation and
articles dropped, digits split from letters); a yes_no question's first answer is "yes" or "no" and one of its
phrases occurs in a quote. Exits 1 on any failure. Self-contained: it does not import the app's scoring code.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TYPES = {"number", "named", "yes_no", "table", "purpose", "unanswerable"}
FIELDS = {"qid", "question", "answers", "type", "paper_title", "evidence"}
_ARTICLES = {"a", "an", "the"}
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUB = "₀₁₂₃₄₅₆₇₈₉"
_DIGIT_FORMS = {str(d): f"[{d}{_SUP[d]}{_SUB[d]}]" for d in range(10)}


def locate(text: str, quote: str) -> list[tuple[int, int]]:
    words = quote.split()
    if not words:
        return []
    pattern = r"\s+".join("".join(_DIGIT_FORMS.get(ch) or re.escape(ch) for ch in w) for w in words)
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


def tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)", " ", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    return [t for t in text.split() if t not in _ARTICLES]


def contains(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def texts_from_db(collection: str, owner: str) -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    import django

    django.setup()
    from evidence.models import Document

    docs = Document.objects.filter(collection__name=collection, collection__owner__username=owner)
    return {d.docid: d.text for d in docs}


def texts_from_dir(folder: Path) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt"))}


def check(items: list[dict], texts: dict[str, str]) -> list[str]:
    problems: list[str] = []
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
        if q["type"] not in TYPES:
            problems.append(f"{qid}: unknown type {q['type']!r}")
        answers, evidence = q["answers"], q["evidence"]
        if not answers or not all(isinstance(a, str) and a.strip() for a in answers):
            problems.append(f"{qid}: empty answers")
            continue
        if q["type"] == "unanswerable":
            if answers != ["unanswerable"] or evidence:
                problems.append(f"{qid}: unanswerable must have answers ['unanswerable'] and no evidence")
            continue
        if not evidence:
            problems.append(f"{qid}: no evidence")
            continue
        quotes_tokens = []
        for ev in evidence:
            docid, quote = ev.get("docid"), ev.get("quote", "")
            if docid not in texts:
                problems.append(f"{qid}: unknown docid {docid!r}")
                continue
            hits = locate(texts[docid], quote)
            if not hits:
                problems.append(f"{qid}: quote not found in {docid}: {quote[:90]!r}")
            quotes_tokens.append(tokens(quote))
        if q["type"] == "yes_no":
            if answers[0] not in ("yes", "no"):
                problems.append(f"{qid}: yes_no gold must start with 'yes' or 'no'")
            phrases = answers[1:]
            if not phrases:
                problems.append(f"{qid}: yes_no needs a phrase of the paper's wording after the polarity")
        else:
            phrases = answers
        if not any(contains(qt, tokens(a)) for a in phrases for qt in quotes_tokens):
            problems.append(f"{qid}: no gold answer or variant occurs in its quotes: {phrases}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", default=str(HERE / "dev4.json"))
    ap.add_argument("--collection", default="realqa4-dev")
    ap.add_argument("--owner", default="demo")
    ap.add_argument("--texts", help="folder of <docid>.txt files instead of the database")
    args = ap.parse_args()

    items = json.loads(Path(args.questions).read_text(encoding="utf-8"))
    texts = texts_from_dir(Path(args.texts)) if args.texts else texts_from_db(args.collection, args.owner)
    if not texts:
        print(f"no documents found (collection {args.collection!r}, owner {args.owner!r}): ingest the papers first")
        return 1
    problems = check(items, texts)
    by_type = collections.Counter(q.get("type") for q in items)
    by_doc = collections.Counter(ev["docid"] for q in items for ev in q.get("evidence", [])[:1])
    n_quotes = sum(len(q.get("evidence", [])) for q in items)
    print(f"{len(items)} questions, {n_quotes} quotes, {len(texts)} documents")
    print("by type: " + ", ".join(f"{t} {by_type[t]}" for t in sorted(by_type, key=lambda t: -by_type[t])))
    print("by paper: " + ", ".join(f"{d} {n}" for d, n in sorted(by_doc.items())))
    unused = sorted(set(texts) - {ev["docid"] for q in items for ev in q.get("evidence", [])})
    if unused:
        print(f"documents with no question: {unused}")
    for p in problems:
        print("FAIL " + p)
    print("OK: every quote found, every gold answer in a quote" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
