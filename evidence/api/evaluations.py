"""Evaluations (run with `manage.py evaluate`): summaries and per-question metrics."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from .. import schemas
from ..models import Evaluation
from . import common
from .common import ERRORS, LIMIT, OFFSET, owned

router = Router()


def evaluation_out(e: Evaluation) -> dict[str, Any]:
    fields = ("id", "benchmark", "system", "collection_id", "config", "status", "summary", "created_at", "finished_at")
    return {f: getattr(e, f) for f in fields}


@router.get("/evaluations", response={200: schemas.EvaluationPage, **ERRORS}, tags=["evaluations"])
def list_evaluations(request: HttpRequest, limit: int = LIMIT, offset: int = OFFSET):
    """List your evaluations (run with `manage.py evaluate`), newest first."""
    page = common.paged(Evaluation.objects.filter(owner=request.user).order_by("-created_at", "-id"), limit, offset)
    page["items"] = [evaluation_out(e) for e in page["items"]]
    return page


@router.get("/evaluations/{evaluation_id}", response={200: schemas.EvaluationDetail, **ERRORS}, tags=["evaluations"])
def get_evaluation(request: HttpRequest, evaluation_id: int):
    """Return an evaluation's summary and per-question metrics."""
    evaluation = owned(Evaluation.objects.filter(owner=request.user), evaluation_id, "evaluation")
    items = [{"qid": i.qid, "run_id": i.run_id, "metrics": i.metrics} for i in evaluation.items.order_by("id")]
    return {**evaluation_out(evaluation), "items": items}
