"""Benchmarks as one protocol (kinds.py), their metrics and statistics, question sets, paired comparisons and run
files; the runner that asks a benchmark's questions as runs is services/evaluation_runner.py."""

from .. import face

# The room's face: the names other rooms import from it (never from one of its modules: tested), each with the
# module that holds it, and the modules they import by name.
FACE = {
    "AnswerJudge": "settings",
    "Benchmark": "kinds",
    "BenchmarkFilesMissing": "kinds",
    "EvalQuestion": "benchmarks",
    "EvaluationSettings": "settings",
    "KINDS": "kinds",
    "MAX_BYTES": "question_sets",
    "MAX_QUESTIONS": "question_sets",
    "Papers": "papers_bench",
    "QuestionSetError": "question_sets",
    "STAGES": "failures",
    "agreement": "answer_judge",
    "benchmark_named": "kinds",
    "browsecomp_filename": "run_formats",
    "browsecomp_for": "run_export",
    "compare": "compare_runs",
    "compare_items": "paired",
    "export_ids": "run_export",
    "failure_stage": "failures",
    "format_report": "paired",
    "funnel_recall": "failures",
    "judge_answer": "answer_judge",
    "kind_of": "kinds",
    "qasper_predictions": "run_formats",
    "qasper_row": "run_export",
    "read_question_set": "question_sets",
    "run_ranking": "run_export",
    "trec_run": "run_formats",
    "trec_scores_replaced": "run_formats",
    "trec_scores_tsv": "run_formats",
}
__getattr__ = face(__name__, FACE)
