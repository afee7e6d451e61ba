"""The Celery app: configuration comes from Django settings (CELERY_*), tasks from evidence/tasks.py."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

app = Celery("researchapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def share_cores_between_pool_processes(sender, **_kwargs) -> None:
    """Tell each pool process how many share the machine, so its ONNX session takes only its part of the cores."""
    # Set before the pool forks, so every child inherits it (read by evidence.encode.embedding.default_threads).
    concurrency = getattr(sender, "concurrency", None)
    if isinstance(concurrency, int) and concurrency > 0:
        os.environ.setdefault("EVIDENCE_WORKER_PROCESSES", str(concurrency))
