"""`manage.py piserini_url COLLECTION --owner USER`: create a secret Pi-Serini backend URL and print its config."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ...models import Collection
from ...piserini import base_url, create_backend, extension_config_json, site_url


class Command(BaseCommand):
    help = (
        "Create a secret backend URL for a collection (by id or name) and print it, then the "
        "PI_SEARCH_EXTENSION_CONFIG for Pi-Serini's http-json backend. The URL is shown only now."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("collection", help="the collection's id or name")
        parser.add_argument("--owner", required=True, help="the collection owner's username")
        parser.add_argument("--name", default="Pi-Serini", help="a label for the URL in lists")
        parser.add_argument("--site", default=None, help="the site's base URL (default EVIDENCE_SITE_URL or local)")

    def handle(self, *args, **options) -> None:
        owner = get_user_model().objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"No user {options['owner']!r}.")
        mine = Collection.objects.filter(owner=owner)
        key = options["collection"]
        collection = (mine.filter(pk=int(key)).first() if key.isdecimal() else None) or mine.filter(name=key).first()
        if collection is None:
            raise CommandError(f"{owner.username} has no collection {key!r} (give its id or name).")
        backend, token = create_backend(collection, options["name"])
        site = options["site"] or site_url()
        self.stdout.write(base_url(token, site))
        self.stdout.write(f"PI_SEARCH_EXTENSION_CONFIG='{extension_config_json(backend, token, site)}'")
