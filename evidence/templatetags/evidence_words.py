"""Template filters that put stored values in a researcher's words: `{% load evidence_words %}`."""

from django import template

from ..views.statuses import status_words as words_of_status

register = template.Library()


@register.filter
def status_words(status: object) -> str:
    """`{{ run.status|status_words }}`: "Stopped: round limit" for round_cap."""
    return words_of_status(status)
