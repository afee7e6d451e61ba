"""`manage.py load_demo`: the demo user and a small demo collection (idempotent, fast on a second run)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from ...ingest import jobs
from ...models import Collection

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_USER = "demo"
DEMO_PASSWORD = "demo-password"


class Command(BaseCommand):
    help = "Create the demo user (demo / demo-password) and ingest the demo collection."

    def handle(self, *args, **options) -> None:
        users = get_user_model().objects
        user = users.filter(username=DEMO_USER).first()
        if user is None:
            user = users.create_user(DEMO_USER, "demo@example.org", DEMO_PASSWORD)
        collection, _ = Collection.objects.get_or_create(
            owner=user, name="Demo", defaults={"description": "Short documents written for the demo."}
        )
        files = sorted(DEMO_DIR.iterdir())
        if collection.documents.count() >= len(files):
            self.stdout.write(f"demo: {collection.documents.count()} documents already loaded")
            return
        job = jobs.create_job(collection, [(path.name, path.read_bytes()) for path in files])
        jobs.process_all(job)
        summary = jobs.job_summary(job)
        self.stdout.write(f"demo: {summary['documents']} documents, {summary['passages']} passages loaded")
