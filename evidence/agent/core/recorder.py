"""The one writer of a run's rows: events, heartbeat and trajectory, judgments, delivered spans, spend, and the
final answer.

Strategy code (the systems, readers and planners) returns values and calls the recorder through its run
context (`ctx.recorder`); it never imports the ORM. A test or a dry run can hand the context another recorder.

The trajectory, a run's recall funnel (SPEC 3 and 6), is written here only, each stage from what the recorder
records: a search tool's result (the documents a search ranked and showed, a page of results, a document
opened), a `reading` event or System 1's judgments (the documents a reader was handed), the spans delivered, and
the answer's citations: the final answer's, and those of each answer a review loop reviewed (its `review` event).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from ... import run_state
from ...judge import EvidenceSpan, Unit
from ...models import Document, Judgment, Run, Span

STAGES = ("surfaced", "previewed", "opened", "inspected", "delivered", "cited")
# The stages an event's documents reach, each with the field that names them (in the event, or in the result of
# the search tool whose event it is). Delivered spans, judgments and the final answer are added where recorded.
REACHED_BY = {
    "search": (("surfaced", "ranked"), ("previewed", "docids")),
    "read_search_results": (("previewed", "docids"),),
    "read_document": (("opened", "docid"),),
    "reading": (("inspected", "docids"),),
    "review": (("cited", "cited"),),
}


@dataclass
class Trajectory:
    """Docids per stage of the funnel, each in first-reached order without repeats."""

    sets: dict[str, list[str]] = field(default_factory=lambda: {stage: [] for stage in STAGES})

    def add(self, stage: str, docids: Sequence[str]) -> list[str]:
        """Add docids to a stage; return those that were new there."""
        if stage not in STAGES:
            raise ValueError(f"unknown trajectory stage {stage!r}: use one of {', '.join(STAGES)}")
        current = self.sets.setdefault(stage, [])
        seen = set(current)
        new = []
        for docid in docids:
            if docid not in seen:
                seen.add(docid)
                current.append(docid)
                new.append(docid)
        return new

    def __getitem__(self, stage: str) -> list[str]:
        return self.sets.get(stage, [])

    def counts(self) -> dict[str, int]:
        return {stage: len(self.sets.get(stage, [])) for stage in STAGES}

    def as_dict(self) -> dict[str, list[str]]:
        return {stage: list(self.sets.get(stage, [])) for stage in STAGES}

    @classmethod
    def from_dict(cls, data: dict[str, list[str]] | None) -> Trajectory:
        trajectory = cls()
        for stage in STAGES:
            trajectory.add(stage, list((data or {}).get(stage, [])))
        return trajectory


class RunCancelled(Exception):
    """The owner cancelled the run: it stops at the next step."""


def heartbeat(run_id: int, trajectory: Trajectory | None) -> str | None:
    """Save the heartbeat (and the trajectory, when given) in one statement; return the run's current status."""
    return run_state.beat(run_id, None if trajectory is None else trajectory.as_dict())


class RunRecorder:
    """Record one run as it goes: every step is an event, a heartbeat, and a cancellation check."""

    def __init__(self, run: Run, emit: Callable[..., Any]):
        self.run = run
        self.emit = emit
        self.trajectory = Trajectory()
        self.delivered: list[EvidenceSpan] = []  # the spans handed to System 2, in order
        self.judgment_of: dict[tuple[str, int, int], int] = {}  # span -> Judgment row id
        self._saved_counts: dict[str, int] | None = None  # the trajectory as last written

    def event(self, kind: str, payload: dict[str, Any], result: dict[str, Any] | None = None) -> None:
        """Record a step: its event, the documents it shows reaching the funnel (REACHED_BY), a heartbeat with the
        trajectory when it grew; raise RunCancelled if the owner cancelled. A search tool's step passes the tool's
        `result` (what it ranked, showed or opened)."""
        named = payload if result is None else result
        for stage, key in REACHED_BY.get(kind, ()):
            docids = named[key]
            self.trajectory.add(stage, [docids] if isinstance(docids, str) else docids)
        self.emit(self.run.pk, kind, payload)
        self.check_cancelled()

    def deliver(self, spans: Sequence[EvidenceSpan]) -> list[EvidenceSpan]:
        """Hand spans to System 2: keep the new ones (in order), whose documents gave evidence, with an event
        each; return them."""
        known = {(s.docid, s.start, s.end) for s in self.delivered}
        fresh = [
            s for s in spans if (s.docid, s.start, s.end) not in known and not known.add((s.docid, s.start, s.end))
        ]
        self.delivered.extend(fresh)
        self.trajectory.add("delivered", [span.docid for span in fresh])
        for span in fresh:
            self.event(
                "evidence",
                {
                    "docid": span.docid,
                    "start": span.start,
                    "end": span.end,
                    "page": span.page,
                    "quote": span.quote,
                    "probability": round(span.probability, 4),
                    "goal": span.sub_question,
                },
            )
        return fresh

    def check_cancelled(self) -> None:
        """Heartbeat (with the trajectory when it grew); raise RunCancelled if the owner cancelled.

        The trajectory's sets only grow, so equal counts mean an unchanged trajectory: it is not rewritten.
        """
        counts = self.trajectory.counts()
        changed = counts != self._saved_counts
        if changed:
            self._saved_counts = counts
        if heartbeat(self.run.pk, self.trajectory if changed else None) == Run.Status.CANCELLED:
            raise RunCancelled("the run was cancelled")

    def spend(self, spent_usd: float, calls: int) -> None:
        """Copy the model client's spend and call count onto the run (the live page shows them)."""
        self.run.spent_usd, self.run.calls = float(spent_usd), int(calls)
        Run.objects.filter(pk=self.run.pk).update(spent_usd=self.run.spent_usd, calls=self.run.calls)

    def judgments(
        self, goal: str, units: Sequence[Unit], best: dict[str, float], spans: Sequence[EvidenceSpan], provider: str
    ) -> None:
        """Write one Judgment row and one event per judged unit: its best region probability and chosen blocks.

        Every unit handed in was inspected, a unit of no stored document included."""
        self.trajectory.add("inspected", [unit.docid for unit in units])
        documents = dict(
            Document.objects.filter(
                collection_id=self.run.collection_id, docid__in=[u.docid for u in units]
            ).values_list("docid", "pk")
        )
        for unit in units:
            if unit.docid not in documents or not unit.blocks:
                continue
            first, last = unit.blocks[0].start, unit.blocks[-1].end
            chosen = [s for s in spans if s.docid == unit.docid and first <= s.start < last]
            probability = best.get(unit.docid, 0.0)
            judgment = Judgment.objects.create(
                run=self.run,
                document_id=documents[unit.docid],
                goal=goal,
                kind=Judgment.Kind.NOUL,
                start=first,
                end=last,
                probabilities=[round(probability, 6)],
                chosen=[[s.start, s.end, round(s.probability, 6)] for s in chosen],
                provider=provider,
            )
            for span in chosen:
                self.judgment_of[(span.docid, span.start, span.end)] = judgment.pk
            top = max(chosen, key=lambda s: s.probability, default=None)
            self.event(
                "judgment",
                {
                    "docid": unit.docid,
                    "title": unit.title,
                    "goal": goal,
                    "probability": round(probability, 4),
                    "block": None if top is None else {"start": top.start, "end": top.end, "quote": top.quote[:300]},
                },
            )

    def finish(self, status: str, answer: Any) -> Run:
        """Write the delivered spans and the citations, the answer and trajectory, and the single end status; emit
        the last events.

        The end status is written once: a run the owner cancelled while its last step ran ends cancelled, and a
        run the reaper already ended (its heartbeat was late) keeps that end, so the last writer never wins.
        """
        run = self.run
        with transaction.atomic():
            end = run_state.end_state(run.pk) or {"status": Run.Status.RUNNING, "error": run.error,
                                                       "finished_at": None}  # fmt: skip
            ended_elsewhere = end["status"] not in (Run.Status.RUNNING, Run.Status.CANCELLED)
            if end["status"] == Run.Status.CANCELLED:
                status = Run.Status.CANCELLED
            documents = {
                d.docid: d
                for d in Document.objects.filter(collection_id=run.collection_id).filter(
                    docid__in={s.docid for s in self.delivered}
                )
            }
            stored: dict[tuple[str, int, int], Span] = {}
            for span in self.delivered:
                document = documents.get(span.docid)
                if document is None:
                    continue
                stored[(span.docid, span.start, span.end)] = Span.objects.create(
                    judgment_id=self.judgment_of.get((span.docid, span.start, span.end)),
                    run=run,
                    document=document,
                    start=span.start,
                    end=span.end,
                    quote=span.quote,
                    page=span.page,
                    probability=span.probability,
                    delivered=True,
                )
            for index, span in answer.citations:
                row = stored.get((span.docid, span.start, span.end))
                if row is not None:
                    run.citations.create(span=row, answer_part=index, marker=f"[{span.docid}]")
            run.answer = answer.as_dict()
            self.trajectory.add("cited", [span.docid for _, span in answer.citations])
            run.trajectory = self.trajectory.as_dict()
            if ended_elsewhere:
                status, run.error = end["status"], end["error"]
            finished_at = end["finished_at"] if ended_elsewhere else timezone.now()
            run_state.record_end(run, status, finished_at, ["answer", "trajectory", "error", "spent_usd", "calls"])
        self.emit(run.pk, "answer", run.answer)
        if ended_elsewhere:  # its 'finished' event was sent when it was ended
            return run
        details = {"funnel": self.trajectory.counts(), "elapsed_s": round(run.elapsed_s or 0.0, 3)}
        run_state.announce_end(run.pk, run.status, run.error, details, emit=self.emit)
        return run
