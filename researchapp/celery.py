"""The Celery app: configuration comes from Django settings (CELERY_*), tasks from evidence/tasks.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

app = Celery("researchapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
