"""Runs for the research loop's tests: one made over a library, and the checks every finished run must pass."""

from __future__ import annotations

from evidence.models import Run, RunEvent


def make_run(library, system="dual", question="How much does caffeine reduce total sleep time?", **kwargs):
    return Run.objects.create(owner=library.owner, collection=library, question=question, system=system, **kwargs)


def assert_consistent(run: Run) -> None:
    delivered = {(s.document.docid, s.start, s.end) for s in run.spans.filter(delivered=True)}
    for span in run.spans.all():
        assert span.document.text[span.start : span.end] == span.quote
    for citation in run.citations.all():
        assert (citation.span.document.docid, citation.span.start, citation.span.end) in delivered
    seqs = list(RunEvent.objects.filter(run=run).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert RunEvent.objects.filter(run=run, kind="finished").count() == 1


PAPER_MD = (
    b"# Robust sentiment models\n\n## Introduction\n\nSentiment models fail on noisy reviews, and we ask why.\n\n"
    b"## Data\n\nWe collected 20,000 hotel reviews from TripAdvisor and annotated each one for sentiment.\n\n"
    b"## Results\n\nOur model reaches 91.2 accuracy and outperforms every baseline.\n"
)
