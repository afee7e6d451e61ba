"""The papers benchmark's figures of finished evaluations, with dev2 split into its two parts by paper.

Usage (evaluations made with `manage.py evaluate papers`, through the product path):

    .venv/bin/python bench/answers/report.py dev2=EVAL:../shared/data/realqa/dev2.json dev=EVAL own=EVAL

`shown_right_by_kind`: right shown answers of each gold type (number, named, table, purpose, yes_no). dev3
(bench/data/dev3.json) is held out whole. Part A of dev2 checked the answer layer's choices (its calibration and
thresholds were fitted on it, out of fold); part B (every second paper by name, bench/answers/data.py) was never
used for any choice. One JSON line per set.
`--rescore`: score each stored answer again with today's strict scorer (evidence/eval/metrics_papers.py) rather
than read the metrics stored when the evaluation ran, so evaluations made before a scoring fix compare fairly.
`in_reader_input`: of the answerable questions read by the whole-paper reader, the share whose gold sentence was
among the sentences the reader model was given (the stored evidence rows, best first, cut to the reader's word
budget as reading.sentences_within cuts them); `whole_paper_read` says how many that was.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.common import django_setup  # noqa: E402


def in_reader_input(item, gold: dict) -> bool | None:
    """Whether the gold sentence was in the reader's input (None: not read by the whole-paper reader)."""
    from django.conf import settings

    from evidence.answers.ranker_rows import Sentence
    from evidence.eval.metrics_papers import locate_quote
    from evidence.reader.reading import sentences_within
    from evidence.run_state import StoredAnswer

    rows = StoredAnswer.of(item.run).signals.get("evidence")
    if not rows or gold["type"] == "unanswerable":
        return None
    texts = dict(
        item.run.collection.documents.filter(docid__in={r["docid"] for r in rows}).values_list("docid", "text")
    )
    best = [Sentence(texts.get(r["docid"], "")[r["start"] : r["end"]], n, 0.0, 0.0) for n, r in enumerate(rows)]
    read = rows[: sentences_within(best, int(settings.EVIDENCE_READER_SENTENCES))]
    ranges = [
        (e["docid"], a, b) for e in gold["evidence"] for a, b in locate_quote(texts.get(e["docid"], ""), e["quote"])
    ]
    return any(r["docid"] == d and r["start"] < b and a < r["end"] for r in read for d, a, b in ranges)


def rescored(item, gold: dict) -> dict:
    """The item's metrics with its exact answer and candidate scored again as the evaluation scores them
    (metrics_papers.answer_correct, strict), by today's scorer."""
    from evidence.eval.metrics_papers import answer_correct, is_abstention
    from evidence.run_state import StoredAnswer

    metrics = dict(item.metrics)
    if item.run is None or not gold or not metrics.get("answerable"):
        return metrics
    stored = StoredAnswer.of(item.run)
    exact, candidate = stored.exact_answer, stored.candidate or stored.exact_answer
    answers, kind = gold["answers"], gold["type"]
    metrics["answer_strict"] = float(answer_correct(exact, answers, kind, strict=True))
    metrics["candidate_strict"] = float(not is_abstention(exact) and answer_correct(candidate, answers, kind, True))
    return metrics


def main() -> None:
    django_setup()
    from bench.answers.data import HELD_OUT, paper_of
    from evidence.eval.metrics_papers import papers_summary
    from evidence.eval.papers_bench import score_from_dict
    from evidence.models import Evaluation

    rescore = "--rescore" in sys.argv
    for spec in [a for a in sys.argv[1:] if a != "--rescore"]:
        name, rest = spec.split("=", 1)
        evaluation_id, _, questions = rest.partition(":")
        golds = {str(q["qid"]): q for q in json.loads(Path(questions).read_text())} if questions else {}
        papers = paper_of(list(golds.values())) if questions else {}
        evaluation = Evaluation.objects.get(pk=int(evaluation_id))
        parts: dict[str, list] = {}
        kinds: dict[str, dict[str, list[bool]]] = {}  # part -> gold type -> shown right, per answerable question
        inputs: dict[str, list[bool]] = {}
        for item in evaluation.items.select_related("run__collection").order_by("pk"):
            if rescore:
                item.metrics = rescored(item, golds.get(item.qid, {}))
            part = name
            if name == "dev2":
                part = "dev2B" if papers[item.qid] in HELD_OUT else "dev2A"
            parts.setdefault(part, []).append(score_from_dict(item.metrics))
            parts.setdefault(f"{name} (all)", []).append(score_from_dict(item.metrics))
            kind = golds.get(item.qid, {}).get("type", "")
            if kind and kind != "unanswerable":
                for key in (part, f"{name} (all)"):
                    kinds.setdefault(key, {}).setdefault(kind, []).append(bool(item.metrics.get("answer_strict")))
            seen = in_reader_input(item, golds[item.qid]) if item.qid in golds and item.run else None
            if seen is not None:
                inputs.setdefault(part, []).append(seen)
                inputs.setdefault(f"{name} (all)", []).append(seen)
        for part, scores in sorted(parts.items()):
            summary = papers_summary(scores)
            read = inputs.get(part, [])
            summary["whole_paper_read"] = len(read)
            summary["in_reader_input"] = round(sum(read) / len(read), 3) if read else None
            keep = ("questions", "answerable", "evidence_hit", "answer_accuracy", "answer_strict", "candidate_strict",
                    "withheld", "confident_wrong", "auroc", "ece", "abstain_correct", "false_abstain",
                    "whole_paper_read", "in_reader_input")  # fmt: skip
            by_kind = {k: f"{sum(v)}/{len(v)}" for k, v in sorted(kinds.get(part, {}).items())}
            print(json.dumps({"set": part, "evaluation": evaluation.pk, **{k: summary.get(k) for k in keep},
                              "shown_right_by_kind": by_kind}))  # fmt: skip


if __name__ == "__main__":
    main()
