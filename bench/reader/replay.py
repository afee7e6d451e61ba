"""Replay the reader on exactly what it read in finished evaluations: compare reading rules offline, fit its confidence.

    .venv/bin/python bench/reader/replay.py capture dev2=EVAL:DATA/realqa/dev2.json dev=EVAL:DATA/realqa/dev.json \
        --out artifacts/reader/inputs.jsonl
    .venv/bin/python bench/reader/replay.py read --inputs artifacts/reader/inputs.jsonl \
        --cache artifacts/reader/completions.jsonl --out artifacts/reader/rows.jsonl
    .venv/bin/python bench/reader/replay.py stored dev6=EVAL:bench/data/dev6.json ... --out artifacts/reader/rows.jsonl

`capture` rebuilds, for every question a finished `manage.py evaluate papers --system dual` run read whole, the
reader's input as the run built it (the papers it inspected read again by the whole-paper reader: its
best sentences, their titles and tables, the extractive answer) and checks it against the sentences the run stored.
`read` hands each input to `evidence.reader.read`, the product's reader, through a cache of the model's
completions (a prompt seen before costs nothing), and writes one row per question: the reply, the signals the
confidence reads, and whether the anchored answer is right under the strict scorer. bench/reader/fit.py fits on
those rows; dev2 part B (every second paper by name) is labelled and never used for a choice.
`stored` writes the same rows from what the evaluations' runs stored (the reading's signals, its P(right), whether
the run ended Not found), with no model call: the product path's own figures, where `read` replays today's reader.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")


def _setup() -> None:
    import django

    django.setup()


def _reading_docids(run: Any) -> list[str] | None:
    """The papers the whole-paper reader read (the run's inspected documents), None when another reader answered."""
    if ((run.answer or {}).get("signals") or {}).get("reader") != "whole":
        return None
    return list((run.trajectory or {}).get("inspected") or [])


def evaluated_questions(specs: list[str]) -> Iterator[tuple[str, str, str, dict, Any]]:
    """(set name, part, paper, gold question, evaluation item) of every question of the finished evaluations
    (NAME=EVALUATION_ID:QUESTIONS.json) that the whole-paper reader read; dev2 split into parts A and B by paper."""
    from bench.answers.data import HELD_OUT, paper_of
    from evidence.models import Evaluation

    for spec in specs:
        name, rest = spec.split("=", 1)
        evaluation_id, _, path = rest.partition(":")
        golds = {str(q["qid"]): q for q in json.loads(Path(path).read_text())}
        papers_of = paper_of(list(golds.values()))
        for item in Evaluation.objects.get(pk=int(evaluation_id)).items.select_related("run").order_by("pk"):
            q = golds.get(item.qid)
            if q is None or item.run is None or not _reading_docids(item.run):
                continue
            paper = papers_of.get(item.qid, "")
            yield name, (name if name != "dev2" else ("dev2B" if paper in HELD_OUT else "dev2A")), paper, q, item


def capture(specs: list[str], out: Path) -> None:
    _setup()
    from evidence.agent.core import load_document_units
    from evidence.agent.readers.general import EVIDENCE_K, top_sentences
    from evidence.agent.readers.general import score_paper_sentences as read_whole
    from evidence.answers.layer import found_in_collection, short_answer
    from evidence.encode.embedding import get_embedder

    out.parent.mkdir(parents=True, exist_ok=True)
    written = same = 0
    with out.open("w") as sink:
        for name, part, paper, q, item in evaluated_questions(specs):
            run = item.run
            docids = _reading_docids(run)
            papers = load_document_units(run.collection_id, docids, "sentence", with_vectors=True)
            blocks, s = read_whole(q["question"], papers)
            if not blocks:
                continue
            top = [(i, replace(sentence, text=blocks[i].text, position=(blocks[i].docid, blocks[i].start)))
                   for i, sentence in top_sentences(s)]  # fmt: skip
            context = " ".join(b.text for paper in papers for b in paper.blocks)
            extractive = short_answer(
                q["question"], [sentence for _, sentence in top[:EVIDENCE_K]], absent=float(s["absent"][0]),
                context=context, embed=get_embedder().embed, threshold=None,
            )  # fmt: skip
            titles = {paper.docid: paper.title or "" for paper in papers}
            stored = [(r["docid"], r["start"]) for r in (run.answer or {}).get("signals", {}).get("evidence", [])]
            rebuilt = [(blocks[i].docid, blocks[i].start) for i, _ in top]
            same += stored == rebuilt
            row = {
                "qid": item.qid, "set": name, "part": part, "paper": paper, "question": q["question"],
                "type": q["type"], "answers": q["answers"], "run": run.pk, "same_as_run": stored == rebuilt,
                "sentences": [asdict(sentence) for _, sentence in top],
                "docids": [blocks[i].docid for i, _ in top],
                "titles": [titles.get(blocks[i].docid, "") for i, _ in top],
                "tables": [str(s["tables"][i]) for i, _ in top],
                "extractive": {**asdict(extractive), "found": found_in_collection(extractive)},
            }  # fmt: skip
            sink.write(json.dumps(row) + "\n")
            written += 1
    print(f"captured {written} inputs ({same} the same sentences as their run stored) -> {out}")


class CachedBackend:
    """The product's backend behind a cache of completions keyed by the whole prompt."""

    def __init__(self, inner: Any, path: Path) -> None:
        from evidence.reader.backends import Completion, Step

        self.inner, self.path, self.hits, self.calls = inner, path, 0, 0
        self.seen: dict[str, Any] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                raw = json.loads(line)
                steps = [Step(s["piece"], s["logprob"], tuple(tuple(t) for t in s["top"])) for s in raw["steps"]]
                self.seen[raw["key"]] = Completion(raw["text"], steps, raw["prompt_tokens"], raw["evaluated_tokens"],
                                                   raw["seconds"])  # fmt: skip

    def complete(self, system: str, user: str, max_tokens: int, timeout_s: float) -> Any:
        key = hashlib.sha256(json.dumps([system, user, max_tokens]).encode()).hexdigest()
        if key in self.seen:
            self.hits += 1
            return self.seen[key]
        self.calls += 1
        completion = self.inner.complete(system, user, max_tokens, 120.0)
        self.seen[key] = completion
        with self.path.open("a") as sink:
            sink.write(json.dumps({"key": key, **asdict(completion)}) + "\n")
        return completion


def read_all(inputs: Path, cache: Path, out: Path) -> None:
    _setup()
    from evidence.answers.layer import ShortAnswer
    from evidence.answers.ranker_rows import Sentence
    from evidence.eval.metrics_papers import answer_correct
    from evidence.reader import reading, runtime

    cache.parent.mkdir(parents=True, exist_ok=True)
    cached = CachedBackend(runtime.backend(), cache)
    reading.runtime.backend = lambda: cached  # type: ignore[attr-defined]
    rows = []
    for line in inputs.read_text().splitlines():
        item = json.loads(line)
        sentences = [Sentence(**{**s, "position": tuple(s["position"]) if s.get("position") else None})
                     for s in item["sentences"]]  # fmt: skip
        ex = dict(item["extractive"])
        found = ex.pop("found")
        extractive = ShortAnswer(**ex)
        result = reading.read(item["question"], sentences, extractive, found, item["titles"], item["tables"],
                              timeout_s=120.0)  # fmt: skip
        short = result.short
        said = short.reader or {}
        candidate = short.text if short.text and (said.get("anchored") or "polarity" in said) else ""
        answerable = item["type"] != "unanswerable"
        right = answerable and bool(candidate) and answer_correct(candidate, item["answers"], item["type"], strict=True)
        rows.append({
            "qid": item["qid"], "set": item["set"], "part": item["part"], "paper": item["paper"], "type": item["type"],
            "answerable": answerable, "candidate": candidate, "right": right, "shown": short.shown,
            "p": short.probability, "found": result.found, "reply": said.get("reply", ""),
            "signals": short.signals, "seconds": said.get("seconds", 0.0), "check": said.get("check"),
        })  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} rows -> {out}; model calls {cached.calls}, from the cache {cached.hits}")


def stored_rows(specs: list[str], out: Path) -> None:
    _setup()
    from evidence.eval.metrics_papers import answer_correct
    from evidence.run_state import StoredAnswer

    rows = []
    for name, part, paper, q, item in evaluated_questions(specs):
        stored = StoredAnswer.of(item.run)
        said = stored.signals.get("reading") or {}
        text = stored.signals.get("candidate") or ""
        candidate = text if said.get("anchored") or "polarity" in said else ""
        answerable = q["type"] != "unanswerable"
        right = answerable and bool(candidate) and answer_correct(candidate, q["answers"], q["type"], strict=True)
        rows.append({
            "qid": item.qid, "set": name, "part": part, "paper": paper, "type": q["type"],
            "answerable": answerable, "candidate": candidate, "right": right,
            "shown": bool(stored.signals.get("shown")), "p": float(stored.signals.get("p_right") or 0.0),
            "found": item.run.status != "not_found", "reply": said.get("reply", ""),
            "signals": stored.signals.get("answer") or {}, "seconds": said.get("seconds", 0.0),
            "check": said.get("check"),
        })  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} rows of stored runs -> {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("evaluations", nargs="+", help="NAME=EVALUATION_ID:QUESTIONS.json")
    cap.add_argument("--out", type=Path, default=ROOT / "artifacts/reader/inputs.jsonl")
    rd = sub.add_parser("read")
    rd.add_argument("--inputs", type=Path, default=ROOT / "artifacts/reader/inputs.jsonl")
    rd.add_argument("--cache", type=Path, default=ROOT / "artifacts/reader/completions.jsonl")
    rd.add_argument("--out", type=Path, default=ROOT / "artifacts/reader/rows.jsonl")
    st = sub.add_parser("stored")
    st.add_argument("evaluations", nargs="+", help="NAME=EVALUATION_ID:QUESTIONS.json")
    st.add_argument("--out", type=Path, default=ROOT / "artifacts/reader/rows.jsonl")
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.evaluations, args.out)
    elif args.command == "stored":
        stored_rows(args.evaluations, args.out)
    else:
        read_all(args.inputs, args.cache, args.out)


if __name__ == "__main__":
    main()
