"""Generate cloze questions from real documents: a typed span of a sentence removed, the sentence made a question.

Usage (a database with the collections ingested):

    .venv/bin/python bench/answers/cloze.py --collections realqa-dev,bench:qasper:... --scifact 1500 \
        --out artifacts/answers/cloze.jsonl

For each body sentence of each document, up to two of its typed candidates (candidates.py) become answers; the
question asks for the removed span by its type ("How many <counted noun> ...", "Which <head noun> ...", "What
percentage ...") with a random share of the sentence's other content words, sometimes a phrase naming the
paper, as real questions do. The whole-paper reader then scores every sentence of the document (with four other
documents for abstracts) for that question, exactly as a run does, and its best sentences are stored: the ranker
is fitted on the candidates of those sentences (fit.py), so it learns to pick the sentence and the span together.
No labelled question is read here.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.common import django_setup  # noqa: E402

TYPE_WEIGHTS = {
    "count": 3.0, "quantity": 3.0, "percentage": 3.0, "range": 1.0, "number": 1.5, "year": 0.3, "name": 2.5,
    "term": 1.5, "phrase": 1.5, "list": 1.0, "purpose": 0.7,
}  # fmt: skip
# A question is kept with this probability by its answer's type: noun phrases are in every sentence, numbers and
# names in few, and real questions ask for numbers and names at least as often as for phrases.
KEEP_TYPE = {"phrase": 0.2, "list": 0.6, "term": 0.8}
TIME_UNITS = re.compile(r"^(?:s|ms|sec|secs?|seconds?|min|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)$")
SHORT = 12  # sentences: a shorter document is read with four others
SCOPE_NOUNS = ("study", "paper", "work", "review", "article", "analysis")


def make_question(
    text: str,
    doc: Any,
    cand: Any,
    title: str,
    rng: random.Random,
    context: list[str] = (),  # type: ignore[assignment]
) -> tuple[str, list[str]] | None:
    """Return (question, gold answers) asking for the candidate's span, or None when no question fits."""
    tokens = [t for t in doc if not t.is_space]
    inside = {t.i for t in tokens if cand.start <= t.idx < cand.end}
    after = [t for t in tokens if t.idx >= cand.end]
    before = [t for t in tokens if t.idx + len(t.text) <= cand.start]
    drop: set[int] = set(inside)
    answers = [cand.text]
    number = re.match(r"[−\-–]?[\d.,]+", cand.text)
    kind = cand.type
    if kind == "count":
        unit = [t for t in after if t.idx < cand.end + len(cand.unit) + 2][: len(cand.unit.split())]
        wh = f"How many {cand.unit}"
        drop |= {t.i for t in unit}
        answers.append(cand.text.split()[0])
    elif kind == "number":
        nxt = after[0] if after else None
        if nxt is not None and nxt.pos_ == "NOUN" and nxt.tag_ in {"NNS", "NNPS"}:
            wh = f"How many {nxt.text}"
            drop.add(nxt.i)
        else:
            wh = f"What {_measure(before, rng)}"
    elif kind == "percentage":
        measure = f"What {_measure(before, rng)}"
        wh = rng.choice(["What percentage of", "What percentage", "What proportion of", measure])
        if number:
            answers.append(number.group())
    elif kind in {"quantity", "range"}:
        unit = cand.unit.lower()
        wh = "How long" if TIME_UNITS.match(unit) else f"What {_measure(before, rng)}"
        if number and kind == "quantity":
            answers.append(number.group())
        if rng.random() < 0.3:
            wh = rng.choice(["How much", "What is the", "To what", "At what"]) + " " + _measure(before, rng)
    elif kind == "year":
        wh = rng.choice(["In what year", "In which year", "When"])
    elif kind == "purpose":
        wh = rng.choice(["Why", "For what purpose", "What for"])
    else:
        root = _root(tokens, inside)
        nxt = after[0] if after else None
        if root is not None and root.pos_ == "NOUN" and len(inside) > 1 and rng.random() < 0.6:
            wh = f"{rng.choice(['Which', 'What'])} {root.text}"
        elif nxt is not None and nxt.pos_ == "NOUN":
            wh = f"{rng.choice(['Which', 'What'])} {nxt.text}"
            drop.add(nxt.i)
        elif before and before[-1].pos_ == "NOUN":
            wh = f"{rng.choice(['Which', 'What'])} {before[-1].text}"
            drop.add(before[-1].i)
        else:
            wh = rng.choice(["What", "Which", "Who" if cand.entity in {"PERSON", "ORG"} else "What"])
    # Real questions paraphrase: keep a part of the sentence's words, few of its stopwords, and sometimes a word or
    # two of the sentences around it.
    keep = rng.uniform(0.2, 0.7)
    words = [
        t.text
        for t in tokens
        if t.i not in drop and not t.is_punct and not (t.is_stop and rng.random() < 0.8) and rng.random() < keep
    ]
    if context and rng.random() < 0.5:
        for word in rng.sample(context, min(len(context), rng.randint(1, 3))):
            words.insert(rng.randint(0, len(words)), word)
    if len([w for w in words if len(w) > 3]) < 2:
        return None
    scope = ""
    title_words = [w for w in re.findall(r"[A-Za-z][\w\-]+", title) if len(w) > 3]
    if title_words and rng.random() < 0.6:
        picked = title_words[: rng.randint(2, 5)]
        scope = f" in the {rng.choice(SCOPE_NOUNS)} on {' '.join(picked)}"
    return f"{wh} {' '.join(words)}{scope}?", list(dict.fromkeys(answers))


def _measure(before: list[Any], rng: random.Random) -> str:
    """The noun a number measures: the nearest noun before it ("the risk of bleeding ... 3.9%" -> "risk")."""
    nouns = [t.text for t in before[-8:] if t.pos_ == "NOUN"]
    return nouns[-1] if nouns and rng.random() < 0.8 else "value"


def _root(tokens: list[Any], inside: set[int]) -> Any:
    for t in tokens:
        if t.i in inside and (t.head.i not in inside or t.head.i == t.i):
            return t
    return None


def sample_answers(candidates: list[Any], rng: random.Random, per_sentence: int, context: str) -> list[Any]:
    """Pick up to `per_sentence` candidates, weighting types so that numbers, names and phrases all appear.

    People ask for details: a candidate that recurs all over the document (its topic, "DVT prophylaxis") is
    sampled less, in proportion to how often it occurs beyond twice.
    """
    from evidence.answers.ranker_rows import _occurrences

    pool = [c for c in candidates if len(c.text) >= 2 and len(c.text.split()) <= 10]
    recurs = {c.text: max(0, _occurrences(c.text, context) - 2) for c in pool}
    chosen = []
    while pool and len(chosen) < per_sentence:
        weights = [TYPE_WEIGHTS.get(c.type, 1.0) / (1.0 + 0.5 * recurs[c.text]) for c in pool]
        pick = rng.choices(pool, weights)[0]
        chosen.append(pick)
        pool = [c for c in pool if c.end <= pick.start or c.start >= pick.end]
    return chosen


def generate(units: list[Any], group: str, others: list[Any], rng: random.Random, per_sentence: int, out) -> int:
    """Write the cloze questions of one document (with `others` read beside it) and return how many."""
    from evidence.agent.readers.general import EVIDENCE_K, top_sentences
    from evidence.agent.readers.general import score_paper_sentences as read_whole
    from evidence.answers.candidates import candidates
    from evidence.answers.nlp import parse
    from evidence.judge.sentences import body_flags
    from evidence.text.question import analyse

    unit = units[0]
    context = " ".join(re.findall(r"\w+", " ".join(b.text for u in [unit, *others] for b in u.blocks).lower()))
    refs = [u.docid for u in [unit, *others]]
    junk = body_flags(list(unit.blocks), unit.title)
    body = [b for b, j in zip(unit.blocks, junk, strict=True) if not j and 8 <= len(b.text.split()) <= 80]
    docs = parse([b.text for b in body])
    neutral = analyse("What?")
    written = 0
    for k, (block, doc) in enumerate(zip(body, docs, strict=True)):
        around = " ".join(b.text for b in body[max(0, k - 2) : k] + body[k + 1 : k + 3])
        nearby = [w for w in re.findall(r"[A-Za-z][\w\-]{3,}", around)]
        for cand in sample_answers(candidates(block.text, neutral, doc), rng, per_sentence, context):
            if rng.random() > KEEP_TYPE.get(cand.type, 1.0):
                continue
            made = make_question(block.text, doc, cand, unit.title, rng, nearby)
            if made is None:
                continue
            question, answers = made
            blocks, scores = read_whole(question, [unit, *others])
            if not blocks:
                continue
            best = top_sentences(scores, EVIDENCE_K)  # the answer layer's own input
            top = [replace(s, text=blocks[i].text) for i, s in best]
            source_in_top = any(blocks[i].start == block.start and blocks[i].docid == block.docid for i, _ in best)
            row = {
                "qid": f"{group}:{block.start}:{cand.start}",
                "group": group,
                "question": question,
                "answers": answers,
                "type": cand.type,
                "source_in_top": source_in_top,
                "absent": float(scores["absent"][0]),
                "context": [group.split("/", 1)[0], refs],
                "sentences": [{"text": s.text, "rank": s.rank, "score": s.score, "probability": s.probability,
                               "coverage": s.coverage} for s in top],
            }  # fmt: skip
            out.write(json.dumps(row) + "\n")
            written += 1
    return written


def collection_units(name: str) -> list[Any]:
    from evidence.agent.core.units import load_document_units
    from evidence.models import Collection

    collection = Collection.objects.filter(name=name).order_by("pk").first()
    if collection is None:
        raise SystemExit(f"no collection named {name!r}")
    docids = list(collection.documents.order_by("docid").values_list("docid", flat=True))
    return load_document_units(collection.pk, docids, "sentence", with_vectors=True)


def abstract_units(path: Path, limit: int, rng: random.Random) -> list[Any]:
    """SciFact abstracts as units of sentences, embedded here (no collection needed)."""
    from evidence.encode.embedding import get_embedder
    from evidence.judge.types import Block, Unit

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rng.shuffle(rows)
    rows = rows[:limit]
    texts = [s for r in rows for s in r["abstract"]]
    vectors = get_embedder().embed(texts)
    units, k = [], 0
    for r in rows:
        blocks, offset = [], 0
        for position, sentence in enumerate(r["abstract"]):
            blocks.append(Block(f"scifact-{r['doc_id']}", offset, offset + len(sentence), sentence, "sentence",
                                "Abstract", None, position, vectors[k]))  # fmt: skip
            offset += len(sentence) + 1
            k += 1
        units.append(Unit(f"scifact-{r['doc_id']}", r["title"], tuple(blocks)))
    return units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--collections", default="", help="comma-separated collection names (papers)")
    parser.add_argument("--scifact", type=int, default=0, help="this many SciFact abstracts")
    parser.add_argument("--per-sentence", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    django_setup()
    from tqdm import tqdm

    rng = random.Random(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    total = 0
    with args.out.open("w") as out:
        for name in [n for n in args.collections.split(",") if n]:
            units = collection_units(name)
            for i, unit in enumerate(tqdm(units, desc=name, file=sys.stderr, mininterval=30)):
                # A short document (a paragraph, an abstract) is read with four others, as a search would bring.
                others = [] if len(unit.blocks) >= SHORT else [units[(i + k * 37) % len(units)] for k in range(1, 5)]
                per_sentence = args.per_sentence if len(unit.blocks) >= SHORT else 1
                total += generate([unit], f"{name}/{unit.docid}", others, rng, per_sentence, out)
        if args.scifact:
            units = abstract_units(ROOT.parent / "shared" / "data" / "scifact" / "corpus.jsonl", args.scifact, rng)
            for i, unit in enumerate(tqdm(units, desc="scifact", file=sys.stderr, mininterval=30)):
                others = [units[(i + k * 37) % len(units)] for k in range(1, 5)]
                total += generate([unit], f"scifact/{unit.docid}", others, rng, 1, out)
    print(json.dumps({"questions": total, "out": str(args.out)}))


if __name__ == "__main__":
    main()
