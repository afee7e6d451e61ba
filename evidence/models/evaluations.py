"""Evaluations: a benchmark's questions asked through the research loop, one item per question."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .documents import Collection
from .runs import Run


class Evaluation(models.Model):
    """One benchmark evaluation: a system over a dataset, with per-question results and a summary."""

    class Status(models.TextChoices):
        QUEUED = "queued"  # started from the browser, waiting for a worker
        RUNNING = "running"
        DONE = "done"
        STOPPED = "stopped"  # the evaluation's spending cap was reached
        FAILED = "failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations")
    benchmark = models.CharField(max_length=20)
    system = models.CharField(max_length=20)
    collection = models.ForeignKey(Collection, on_delete=models.SET_NULL, null=True, blank=True)
    config = models.JSONField(default=dict, blank=True)
    key = models.CharField(max_length=64, db_index=True)  # identifies (benchmark, data, system, config) for resuming
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    summary = models.JSONField(default=dict, blank=True)
    out_dir = models.CharField(max_length=1000, blank=True)
    label = models.CharField(max_length=200, blank=True)  # the question set's file name
    questions = models.JSONField(default=list, blank=True)  # a papers evaluation's question set, as asked
    # Where a background evaluation is: {"stage": "preparing" | "asking", "done", "total", "at" (a timestamp)}.
    progress = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    FINISHED = (Status.DONE, Status.STOPPED, Status.FAILED)
    STALLED_AFTER_S = 1800  # no progress for this long: its worker is gone

    @property
    def finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def total(self) -> int:
        """How many questions it asks (a CLI evaluation of a benchmark says so only in its summary)."""
        return len(self.questions) or int(self.summary.get("questions") or 0)

    def is_active(self) -> bool:
        """Whether it is queued or running and has moved in the last half hour."""
        if self.finished:
            return False
        at = self.progress.get("at") or self.created_at.timestamp()
        return timezone.now().timestamp() - float(at) < self.STALLED_AFTER_S


class EvaluationItem(models.Model):
    """One question of an evaluation: its run and its metrics."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="items")
    qid = models.CharField(max_length=200)
    run = models.ForeignKey(Run, on_delete=models.SET_NULL, null=True, blank=True, related_name="evaluation_items")
    metrics = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["evaluation", "qid"], name="evaluationitem_unique_qid")]
        ordering = ["id"]
