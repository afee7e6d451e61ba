"""The papers benchmark's figures of finished evaluations, with dev2 split into its two parts by paper.

Usage (evaluations made with `manage.py evaluate papers`, through the product path):

    .venv/bin/python bench/answers/report.py dev2=EVAL:../shared/data/realqa/dev2.json dev=EVAL own=EVAL

Part A of dev2 checked the answer layer's choices (its calibration and thresholds were fitted on it, out of fold);
part B (every second paper by name, bench/answers/data.py) was never used for any choice. One JSON line per set.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.answers.common import django_setup  # noqa: E402


def main() -> None:
    django_setup()
    from bench.answers.data import HELD_OUT, paper_of
    from evidence.eval.metrics_papers import papers_summary
    from evidence.eval.papers_bench import score_from_dict
    from evidence.models import Evaluation

    for spec in sys.argv[1:]:
        name, rest = spec.split("=", 1)
        evaluation_id, _, questions = rest.partition(":")
        papers = paper_of(json.loads(Path(questions).read_text())) if questions else {}
        evaluation = Evaluation.objects.get(pk=int(evaluation_id))
        parts: dict[str, list] = {}
        for item in evaluation.items.order_by("pk"):
            part = name
            if name == "dev2":
                part = "dev2B" if papers[item.qid] in HELD_OUT else "dev2A"
            parts.setdefault(part, []).append(score_from_dict(item.metrics))
            parts.setdefault(f"{name} (all)", []).append(score_from_dict(item.metrics))
        for part, scores in sorted(parts.items()):
            summary = papers_summary(scores)
            keep = ("questions", "answerable", "evidence_hit", "answer_accuracy", "answer_strict", "candidate_strict",
                    "withheld", "confident_wrong", "auroc", "ece", "abstain_correct", "false_abstain")  # fmt: skip
            print(json.dumps({"set": part, "evaluation": evaluation.pk, **{k: summary.get(k) for k in keep}}))


if __name__ == "__main__":
    main()
