"""Replay the reader on exactly what it read in finished evaluations: compare reading rules offline, fit its confidence.

    .venv/bin/python bench/reader/replay.py capture dev2=EVAL:DATA/realqa/dev2.json dev=EVAL:DATA/realqa/dev.json \
        --out artifacts/reader/inputs.jsonl
    .venv/bin/python bench/reader/replay.py read --inputs artifacts/reader/inputs.jsonl \
        --cache artifacts/reader/completions.jsonl --out artifacts/reader/rows.jsonl

`capture` rebuilds, for every question a finished `manage.py evaluate papers --system dual` run read whole, the
reader's input as the run built it (the papers it inspected read again by the whole-paper reader: its
best sentences, their titles and tables, the extractive answer) and checks it against the sentences the run stored.
`read` hands each input to `evidence.reader.read`, the product's reader, through a cache of the model's
completions (a prompt seen before costs nothing), and writes one row per question: the reply, the signals the
confidence reads, and whether the anchored answer is right under the strict scorer. bench/reader/fit.py fits on
those rows; dev2 part B (every second paper by name) is labelled and never used for a choice.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
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


def capture(specs: list[str], out: Path) -> None:
    _setup()
    from bench.answers.data import HELD_OUT, paper_of
    from evidence.agent.core import load_document_units
    from evidence.agent.readers.general import score_paper_sentences as read_whole
    from evidence.agent.readers.general import top_sentences
    from evidence.answers.layer import found_in_collection, short_answer
    from evidence.encode.embedding import get_embedder
    from evidence.models import Evaluation

    out.parent.mkdir(parents=True, exist_ok=True)
    written = same = 0
    with out.open("w") as sink:
        for spec in specs:
            name, rest = spec.split("=", 1)
            evaluation_id, _, path = rest.partition(":")
            golds = {str(q["qid"]): q for q in json.loads(Path(path).read_text())}
            papers_of = paper_of(list(golds.values()))
            for item in Evaluation.objects.get(pk=int(evaluation_id)).items.select_related("run").order_by("pk"):
                q, run = golds.get(item.qid), item.run
                if q is None or run is None:
                    continue
                docids = _reading_docids(run)
                if not docids:
                    continue
                papers = load_document_units(run.collection_id, docids, "sentence", with_vectors=True)
                blocks, s = read_whole(q["question"], papers)
                if not blocks:
                    continue
                top = [(i, replace(sentence, text=blocks[i].text)) for i, sentence in top_sentences(s)]
                context = " ".join(b.text for paper in papers for b in paper.blocks)
                extractive = short_answer(
                    q["question"], [sentence for _, sentence in top], absent=float(s["absent"][0]), context=context,
                    embed=get_embedder().embed, threshold=None,
                )  # fmt: skip
                titles = {paper.docid: paper.title or "" for paper in papers}
                stored = [(r["docid"], r["start"]) for r in (run.answer or {}).get("signals", {}).get("evidence", [])]
                rebuilt = [(blocks[i].docid, blocks[i].start) for i, _ in top]
                same += stored == rebuilt
                paper = papers_of.get(item.qid, "")
                part = name if name != "dev2" else ("dev2B" if paper in HELD_OUT else "dev2A")
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
        sentences = [Sentence(**s) for s in item["sentences"]]
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
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.evaluations, args.out)
    else:
        read_all(args.inputs, args.cache, args.out)


if __name__ == "__main__":
    main()
