"""`manage.py evaluate BENCHMARK --data ...`: run a system on a benchmark; the summary is the last line (JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from ...agent import SYSTEM_NAMES
from ...eval import KINDS, AnswerJudge, BenchmarkFilesMissing, EvaluationSettings, benchmark_named
from ...retrieval import SEARCHERS
from ...services import evaluate, evaluations

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"


class Command(BaseCommand):
    help = (
        "Evaluate a system on scifact, qasper or hotpotqa, or on your own gold questions over your collection "
        "(papers --questions FILE --collection NAME); resumable; prints one JSON summary line last."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("benchmark", choices=list(KINDS))
        parser.add_argument("--questions", type=Path, help="papers: gold questions JSON (the realqa format)")
        parser.add_argument("--collection", default=None, help="papers: the collection to ask over")
        parser.add_argument(
            "--scoped",
            action="store_true",
            help="papers: ask each question about its own paper only, as 'Ask about this document' does",
        )
        parser.add_argument("--data", type=Path, help="qasper/hotpotqa JSON file")
        parser.add_argument("--corpus", type=Path, help="scifact corpus.jsonl")
        parser.add_argument("--claims", type=Path, help="scifact claims JSON")
        parser.add_argument(
            "--system",
            default="dual",
            help=f"one of {', '.join(SYSTEM_NAMES)}, or a retrieval-only searcher for scifact ({', '.join(SEARCHERS)})",
        )
        parser.add_argument("--searcher", default="hybrid", choices=SEARCHERS)
        parser.add_argument("--limit", type=int, default=None)
        parser.add_argument("--offset", type=int, default=0, help="skip the first N questions (e.g. a fit split)")
        parser.add_argument("--out", type=Path, default=None)
        parser.add_argument("--spend-cap", type=float, default=None, help="USD for the whole evaluation")
        parser.add_argument("--budget", type=float, default=None, help="time budget per question, seconds")
        parser.add_argument("--owner", default=None)
        parser.add_argument("--fresh", action="store_true", help="start a new evaluation instead of resuming")
        parser.add_argument(
            "--background",
            action="store_true",
            help="papers: queue it for a worker, as the Evaluations page does, and print its id (watch it there)",
        )
        parser.add_argument(
            "--no-prepare",
            action="store_true",
            help="ask without preparing the papers for reading first (a cold collection, as before an upload's "
            "background preparation ends)",
        )
        parser.add_argument(
            "--answer-judge",
            default=None,
            metavar="MODEL",
            help="judge answers with this OpenAI-compatible model (OPENAI_BASE_URL, OPENAI_API_KEY)",
        )
        parser.add_argument("--judge-base-url", default=None, help="base URL of the answer judge's endpoint")
        parser.add_argument(
            "--judge-replay-of",
            type=int,
            default=None,
            metavar="EVAL",
            help="replay the answer judge's recorded calls of evaluation EVAL (no key needed)",
        )

    def handle(self, *args, **options) -> None:
        bench = self._benchmark(options)
        system, searcher = options["system"], options["searcher"]
        if system in SEARCHERS:
            # A retrieval-only baseline: one search with that searcher, no System 1.
            system, searcher = "single_pass", system
        if system not in SYSTEM_NAMES:
            raise CommandError(f"Unknown system {system!r}: use one of {', '.join(SYSTEM_NAMES + SEARCHERS)}.")
        judge = options["answer_judge"]
        config = EvaluationSettings(
            run={"searcher": searcher},
            quiet_events=True,
            budget_s=options["budget"] or None,
            offset=options["offset"] or 0,
            answer_judge=AnswerJudge(judge, options["judge_base_url"], options["judge_replay_of"]) if judge else None,
            scoped=bool(options.get("scoped")),
        )
        questions = bench.questions()
        if options["offset"]:
            bench.questions = lambda: questions[options["offset"] :]  # type: ignore[method-assign]
        bar = tqdm(total=0, unit="q", disable=options["verbosity"] == 0, file=self.stderr)

        def progress(index: int, total: int) -> None:
            bar.total = total
            bar.n = index - 1
            bar.refresh()

        preparing_bar = tqdm(
            total=0, unit="sentence", desc="preparing", disable=options["verbosity"] == 0, file=self.stderr
        )

        def preparing(done: int, total: int) -> None:
            preparing_bar.total = total
            preparing_bar.n = done
            preparing_bar.refresh()

        owner = self._owner(options["owner"], bench)
        if bench.users_collection:
            try:
                collection = bench.collection(owner)
            except ValueError as error:
                raise CommandError(f"{error} (or give --owner).") from error
            items = bench.raw[options["offset"] or 0 :][: options["limit"] or None]
            run_options = {
                "out_dir": options["out"],
                "spend_cap_usd": options["spend_cap"],
                "progress": progress,
                "preparing": preparing,
                "prepare": not options["no_prepare"],
            }
            # The browser's way in: the same row, task and runner; here it runs in this process unless --background.
            try:
                evaluation = evaluations.start_evaluation(
                    owner,
                    collection,
                    system,
                    items,
                    label=(options["questions"] or options["data"]).name,
                    config=config,
                    fresh=options["fresh"],
                    background=options["background"],
                    **({} if options["background"] else run_options),
                )
            except evaluations.EvaluationRefused as error:
                raise CommandError(str(error)) from error
            summary = evaluation.summary if evaluation.finished else {"evaluation": evaluation.pk, "status": "queued"}
            preparing_bar.close()
            bar.n = bar.total
            bar.close()
            self.stdout.write(json.dumps(summary))
            return
        summary = evaluate(
            bench,
            owner,
            system,
            config,
            limit=options["limit"],
            out_dir=options["out"],
            spend_cap_usd=options["spend_cap"],
            progress=progress,
            fresh=options["fresh"],
            preparing=preparing,
            prepare=not options["no_prepare"],
        )
        preparing_bar.close()
        bar.n = bar.total
        bar.close()
        self.stdout.write(json.dumps(summary))

    def _benchmark(self, options):
        try:
            return benchmark_named(
                options["benchmark"],
                DATA,
                data=options["data"],
                corpus=options["corpus"],
                claims=options["claims"],
                questions=options["questions"],
                collection=options["collection"],
                scoped=options["scoped"],
            )
        except BenchmarkFilesMissing as error:
            raise CommandError(str(error)) from error

    def _owner(self, username: str | None, bench=None):
        users = get_user_model().objects
        if username:
            user = users.filter(username=username).first()
            if user is None:
                raise CommandError(f"No user named {username!r}.")
            return user
        if bench is not None and bench.users_collection:
            # A user's own collection: evaluate as its owner (the first collection of that name).
            from ...models import Collection

            found = Collection.objects.filter(name=bench.collection_name).order_by("pk").first()
            if found is None:
                raise CommandError(f"No collection named {bench.collection_name!r}: ingest the papers first.")
            return found.owner
        user = users.filter(username="evaluator").first()
        return user or users.create_user("evaluator", "", None)
