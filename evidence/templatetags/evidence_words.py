"""Template filters that put stored values in a researcher's words: `{% load evidence_words %}`."""

from django import template

from ..forms import SYSTEM_LABELS
from ..models import Citation, Run
from ..presenting import AnswerView, answer_view, confidence_words
from ..views import status_words as words_of_status

register = template.Library()


@register.filter
def status_words(status: object) -> str:
    """`{{ run.status|status_words }}`: "Stopped: round limit" for round_cap."""
    return words_of_status(status)


@register.filter
def system_name(system: object) -> str:
    """`{{ run.system|system_name }}`: "Dual (planner + System 1 judge)" for dual, as the Ask form names it."""
    return SYSTEM_LABELS.get(str(system), str(system).replace("_", " ").capitalize())


@register.filter
def confidence(p: float | None) -> str:
    """`{{ short.confidence|confidence }}`: "likely right, 82%"."""
    return confidence_words(p)


@register.simple_tag
def answer_of(run: Run, citations: list[Citation]) -> AnswerView:
    """`{% answer_of run citations as answer %}`: the answer laid out answer first (every page that shows one)."""
    return answer_view(run, citations)
