"""Research runs and what they leave: events, searches, judgments, spans, citations and model calls."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from .documents import Collection, Document


class Run(models.Model):
    """One research run: a question over a collection, its budget, spend, end status and answer."""

    class Task(models.TextChoices):
        QA = "qa"
        RANKING = "ranking"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        ANSWERED = "answered"
        NOT_FOUND = "not_found", "Not found"  # the collection does not answer the question: closest evidence shown
        ROUND_CAP = "round_cap"
        NO_NEW_PASSAGES = "no_new_passages"
        DEADLINE = "deadline"
        BUDGET = "budget"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="runs")
    question = models.TextField()
    task = models.CharField(max_length=10, choices=Task.choices, default=Task.QA)
    system = models.CharField(max_length=20, default="dual")
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    budget_s = models.FloatField(default=300.0)
    spend_cap_usd = models.FloatField(default=5.0)
    spent_usd = models.FloatField(default=0.0)
    calls = models.PositiveIntegerField(default=0)
    answer = models.JSONField(default=dict, blank=True)  # explanation, exact_answer, confidence, ranking
    trajectory = models.JSONField(default=dict, blank=True)  # surfaced/previewed/opened/inspected/delivered/cited
    last_seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # moved by every step; a stale one means a lost worker
    sends = models.PositiveSmallIntegerField(default=0)  # times its task was queued (the reaper queues a lost one)
    sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The client's Idempotency-Key: a retried create returns this run instead of starting another.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    # The run this one follows up (a thread of questions on the same collection and documents).
    follows = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="follow_ups")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "status"])]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="run_unique_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.question[:60]}"

    @property
    def is_finished(self) -> bool:
        return self.status not in self.ACTIVE_STATUSES

    @property
    def elapsed_s(self) -> float | None:
        if self.started_at is None:
            return None
        end = self.finished_at or timezone.now()
        return (end - self.started_at).total_seconds()


class RunEvent(models.Model):
    """One step of a run as the browser shows it; `seq` is gapless per run (streams/writer.py is the only writer)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="runevent_unique_seq")]
        ordering = ["run_id", "seq"]


class Search(models.Model):
    """A cached ranking under a per-run `search_id` (s1, s2, ...); at most 32 live per run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="searches")
    search_id = models.CharField(max_length=10)
    query = models.TextField()
    reason = models.TextField(blank=True)
    searcher = models.CharField(max_length=20)
    ranking = models.JSONField(default=list)  # [[docid, score, passage_ordinal|None], ...] best first
    evicted = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "search_id"], name="search_unique_id")]
        ordering = ["run_id", "id"]


class Judgment(models.Model):
    """One typed System 1 judgment of a document region against a goal."""

    class Kind(models.TextChoices):
        NOUL = "noul"
        CHOICE = "choice"
        SCORE = "score"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="judgments", null=True, blank=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="judgments")
    goal = models.TextField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    options = models.JSONField(default=list, blank=True)  # labels for choice/score
    probabilities = models.JSONField(default=list)  # one per option, or [p] for noul
    chosen = models.JSONField(default=list, blank=True)  # chosen option indices
    provider = models.CharField(max_length=20, default="local")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]


class Span(models.Model):
    """A raw span of a document: `document.text[start:end] == quote`, checked on every save."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="spans", null=True, blank=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="spans")
    judgment = models.ForeignKey(Judgment, on_delete=models.SET_NULL, related_name="spans", null=True, blank=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    quote = models.TextField()
    page = models.PositiveIntegerField(null=True, blank=True)
    probability = models.FloatField(null=True, blank=True)
    delivered = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def clean(self) -> None:
        if not 0 <= self.start < self.end <= len(self.document.text):
            raise ValidationError(f"Span offsets {self.start}-{self.end} fall outside the document text.")
        if self.document.text[self.start : self.end] != self.quote:
            raise ValidationError("Span quote differs from document.text[start:end]: offsets and quote must agree.")

    def save(self, *args, **kwargs) -> None:
        self.clean()
        super().save(*args, **kwargs)

    @property
    def matches_source(self) -> bool:
        """Tell whether the stored offsets still select exactly the quote (the audit view shows broken spans)."""
        return self.document.text[self.start : self.end] == self.quote


class Citation(models.Model):
    """A part of a run's answer (a sentence of the explanation) pointing at a delivered span."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="citations")
    span = models.ForeignKey(Span, on_delete=models.CASCADE, related_name="citations")
    answer_part = models.PositiveIntegerField(default=0)  # index of the explanation sentence citing it
    marker = models.CharField(max_length=50)  # the inline marker as written, e.g. "[4983]"
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run_id", "answer_part", "id"]


class ModelCall(models.Model):
    """One recorded model call (LLM or judge): replayable by `request_hash`; every retry is its own row."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="model_calls", null=True, blank=True)
    request_hash = models.CharField(max_length=64, db_index=True)
    provider = models.CharField(max_length=20)
    model = models.CharField(max_length=100)
    attempt = models.PositiveIntegerField(default=1)
    request = models.JSONField(default=dict)
    response = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    latency_s = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
