"""Finished runs over a paper as the research loop writes them: an answer shown, withheld, or not found.

Each answer is composed as evidence/agent/core/answering.py composes one ("quote [docid] quote [docid]", the short
answer's place kept in `highlight`); the quotes include a span cut mid-sentence and text with PDF debris (a bullet
glyph, a footnote mark), which the run page must show as whole, clean sentences.
"""

from __future__ import annotations

from django.utils import timezone

from evidence import streams
from evidence.answers.layer import NO_SHORT_ANSWER
from evidence.models import Document, Run, Span

QUESTION = "How many nodes does the Semantic Scholar literature graph have?"
TEXT = (
    "Construction of the Literature Graph in Semantic Scholar\n\n"
    "Abstract\n"
    "• We describe a deployed scalable system for organizing published scientific literature into a "
    "heterogeneous graph to facilitate algorithmic manipulation and discovery.¹ "
    "The resulting literature graph consists of more than 280M nodes, representing papers, authors, entities "
    "and various interactions between them. "
    "Although participants were exposed to the graph during the study, most of them never opened it. "
    "We report results on three tasks.\n"
)
QUOTES = (
    "We describe a deployed scalable system for organizing published scientific literature into a "
    "heterogeneous graph to facilitate algorithmic manipulation and discovery.¹",
    "The resulting literature graph consists of more than 280M nodes, representing papers, authors, entities "
    "and various interactions between them.",
    "Although participants were exposed to",  # a span cut mid-sentence: the page shows its whole sentence
)
SHORT = "280M"


def paper(collection) -> Document:
    return Document.objects.create(
        collection=collection, docid="N18-3011", title="Construction of the Literature Graph in Semantic Scholar",
        source_name="N18-3011.pdf", source_format="pdf", sha256="2" * 64, text=TEXT,
    )  # fmt: skip


def paper_run(
    owner,
    collection,
    document: Document,
    outcome: str = "short_answer",
    question: str = QUESTION,
    system: str = "dual",
    confidence: float = 0.82,
    candidate: str = SHORT,
    config: dict | None = None,
) -> Run:
    """A finished run citing the three quotes; `outcome` short_answer, no_short_answer or not_found."""
    now = timezone.now()
    run = Run.objects.create(
        owner=owner,
        collection=collection,
        question=question,
        system=system,
        config=config or {"searcher": "hybrid"},
        status=Run.Status.RUNNING,
        started_at=now,
    )
    emit = lambda kind, payload: streams.emit(run.pk, kind, payload)  # noqa: E731
    emit("status", {"status": "running", "system": system, "question": question})
    emit("plan", {"sub_questions": [question], "queries": ["literature graph nodes", "semantic scholar graph size"]})
    emit(
        "search",
        {
            "search_id": "s1",
            "query": "literature graph nodes",
            "searcher": "hybrid",
            "total": 1,
            "top": [{"rank": 1, "docid": document.docid, "title": document.title, "score": 3.1, "excerpt": TEXT[:80]}],
        },
    )
    emit("reader", {"reader": "whole", "docids": [document.docid]})
    emit("judgment", {"docid": document.docid, "title": document.title, "goal": question, "probability": 0.82})
    emit("paper_reading", {"papers": 1, "sentences": 412, "picked": 3, "reader": "whole"})
    spans = []
    for index, quote in enumerate(QUOTES):
        start = TEXT.index(quote)
        spans.append(
            Span.objects.create(
                run=run,
                document=document,
                start=start,
                end=start + len(quote),
                quote=quote,
                page=1,
                probability=0.9 - index / 10,
                delivered=True,
            )
        )
        emit(
            "evidence",
            {
                "docid": document.docid,
                "start": start,
                "end": start + len(quote),
                "page": 1,
                "quote": quote,
                "probability": 0.9 - index / 10,
                "goal": question,
            },
        )
    parts = [f"{quote} [{document.docid}]" for quote in QUOTES]
    prefix = "Not found in this collection. The closest evidence: " if outcome == "not_found" else ""
    explanation = prefix + " ".join(parts)
    answer: dict = {
        "explanation": explanation,
        "dropped_citations": 0,
        "ranking": [],
        "signals": {"candidate": candidate, "p_right": confidence, "shown": outcome == "short_answer"},
    }
    if outcome == "short_answer":
        at = explanation.index(SHORT)
        answer |= {"exact_answer": SHORT, "confidence": confidence, "highlight": [at, at + len(SHORT)]}
    elif outcome == "no_short_answer":
        answer |= {"exact_answer": NO_SHORT_ANSWER, "confidence": confidence}
    else:
        answer |= {"exact_answer": "Not found in this collection", "confidence": 0.0, "not_found": True}
    for index, span in enumerate(spans):
        run.citations.create(span=span, answer_part=index, marker=f"[{document.docid}]")
    run.answer = answer
    run.status = Run.Status.NOT_FOUND if outcome == "not_found" else Run.Status.ANSWERED
    run.finished_at = timezone.now()
    run.trajectory = {
        stage: [document.docid] for stage in ("surfaced", "previewed", "inspected", "delivered", "cited")
    } | {"opened": []}
    run.save(update_fields=["answer", "trajectory", "status", "finished_at"])
    emit("answer", run.answer)
    emit("finished", {"status": run.status, "error": "", "elapsed_s": 1.5})
    run.refresh_from_db()
    return run
