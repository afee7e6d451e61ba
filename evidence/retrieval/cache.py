"""Per-run cache of rankings under search ids s1, s2, ...: at most 32 live, the oldest evicted first."""

from __future__ import annotations

from django.db import transaction

from ..models import Search
from .types import Hit

MAX_LIVE_SEARCHES = 32


class UnknownSearchId(LookupError):
    pass


def store_ranking(run_id: int, query: str, reason: str, searcher: str, hits: list[Hit]) -> Search:
    """Cache a ranking under the run's next search id, evicting the oldest beyond the limit."""
    with transaction.atomic():
        count = Search.objects.select_for_update().filter(run_id=run_id).count()
        search = Search.objects.create(
            run_id=run_id,
            search_id=f"s{count + 1}",
            query=query,
            reason=reason,
            searcher=searcher,
            ranking=[[hit.docid, round(hit.score, 6), hit.passage] for hit in hits],
        )
        live = list(Search.objects.filter(run_id=run_id, evicted=False).order_by("-id").values_list("pk", flat=True))
        stale = live[MAX_LIVE_SEARCHES:]
        if stale:
            # The evicted ranking is dropped (it can be 1,000 rows); the row stays for the trajectory.
            Search.objects.filter(pk__in=stale).update(evicted=True, ranking=[])
    return search


def load_ranking(run_id: int, search_id: str) -> Search:
    """Return a live cached search, or raise UnknownSearchId with a message that says how to fix the call."""
    search = Search.objects.filter(run_id=run_id, search_id=search_id).first()
    if search is None:
        live = list(
            Search.objects.filter(run_id=run_id, evicted=False).order_by("id").values_list("search_id", flat=True)
        )
        known = f" Known search ids: {', '.join(live)}." if live else ""
        raise UnknownSearchId(f"search_id {search_id!r} is unknown. Call search first.{known}")
    if search.evicted:
        raise UnknownSearchId(
            f"search_id {search_id!r} was evicted: only the {MAX_LIVE_SEARCHES} most recent searches are kept. "
            f"Call search again with the query {search.query!r}."
        )
    return search
