"""Django project package: settings, urls, the Celery app and the ASGI entry point."""

from .celery import app as celery_app

__all__ = ["celery_app"]
