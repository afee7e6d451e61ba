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
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


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
