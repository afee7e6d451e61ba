"""`manage.py check_replay RUN_OR_EVAL`: re-run from recorded calls (no key needed) and list what changed."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...models import Evaluation, Run
from ...services import replay_run


class Command(BaseCommand):
    help = "Replay a run (or every run of an evaluation: eval:ID) and list changed answers, citations or scores."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("target", help="a run id, or eval:ID for every run of an evaluation")

    def handle(self, *args, **options) -> None:
        target: str = options["target"]
        if target.startswith("eval:"):
            evaluation = Evaluation.objects.filter(pk=int(target[5:])).first()
            if evaluation is None:
                raise CommandError(f"No evaluation {target[5:]}.")
            runs = [item.run for item in evaluation.items.select_related("run") if item.run]
        else:
            run = Run.objects.filter(pk=int(target)).first() if target.isdecimal() else None
            if run is None:
                raise CommandError(f"No run {target}: give a run id or eval:ID.")
            runs = [run]
        changed = 0
        for run in runs:
            replay, diffs = replay_run(run)
            if diffs:
                changed += 1
                self.stdout.write(f"run {run.pk} -> replay {replay.pk}: {len(diffs)} difference(s)")
                for line in diffs:
                    self.stdout.write(f"  - {line}")
            else:
                self.stdout.write(f"run {run.pk} -> replay {replay.pk}: identical")
        self.stdout.write(f"{len(runs)} run(s) replayed, {changed} changed")
        if changed:
            raise CommandError(f"{changed} replayed run(s) differ from their recording.")
