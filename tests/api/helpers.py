"""Shared helpers of the API tests: a finished run with a cited span, and events."""

from __future__ import annotations

from django.utils import timezone

from evidence import events
from evidence.models import Document, Run, Span


def finished_run(owner, collection, document: Document, question: str = "Does caffeine delay sleep?") -> Run:
    """Return an answered run citing the document's first sentence, with a gapless event stream."""
    run = Run.objects.create(owner=owner, collection=collection, question=question, system="single_pass",
                             status=Run.Status.ANSWERED, started_at=timezone.now(), finished_at=timezone.now(),
                             answer={"explanation": f"It does [{document.docid}].", "exact_answer": "yes",
                                     "confidence": 0.8},
                             trajectory={"surfaced": [document.docid], "cited": [document.docid]})
    end = document.text.index(".") + 1
    span = Span.objects.create(run=run, document=document, start=0, end=end, quote=document.text[:end],
                               delivered=True)
    run.citations.create(span=span, answer_part=0, marker=f"[{document.docid}]")
    for kind in ("status", "search", "answer", "finished"):
        events.emit(run.pk, kind, {"status": run.status} if kind == "finished" else {"k": kind})
    run.refresh_from_db()
    return run
