"""`manage.py prepare_static`: collect and compress the static files when the collected copy is missing or older
than its sources (`make run` runs it at every start; a current copy costs nothing)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from ...static_serving import collected_is_current, finder_files


class Command(BaseCommand):
    help = "Collect and compress static files unless the collected copy is already current."

    def handle(self, *args: object, **options: object) -> None:
        if collected_is_current(Path(settings.STATIC_ROOT), finder_files()):
            return
        self.stderr.write("Collecting and compressing static files (once after an update, about 20 s)...")
        call_command("collectstatic", "--noinput", "-v", "0")
