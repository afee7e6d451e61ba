"""The JSON API under /api/: thin endpoints over the same functions the pages use, every object by owner; one
module per resource."""

from __future__ import annotations

from ninja import Router

from . import collections, documents, evaluations, runs

router = Router()
for resource in (collections, documents, runs, evaluations):
    router.add_router("", resource.router)
