"""App configuration for the evidence app."""

from django.apps import AppConfig


class EvidenceConfig(AppConfig):
    name = "evidence"
    verbose_name = "Evidence desk"
    default_auto_field = "django.db.models.BigAutoField"
