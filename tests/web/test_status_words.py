"""End statuses read as what happened ("Stopped: round limit") on every researcher page; stored values stay."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.template import Context, Template

from evidence.models import Run
from evidence.views.statuses import STATUS_WORDS, status_choices, status_words

pytestmark = pytest.mark.django_db

STOPS = {
    "round_cap": "Stopped: round limit",
    "no_new_passages": "Stopped: no new passages",
    "deadline": "Stopped: time limit",
    "budget": "Stopped: spending limit",
}
ENGINEER_LABELS = ("Round Cap", "No New Passages", ">Deadline<", ">Budget<")


def test_every_status_has_its_words_and_the_stops_say_what_stopped_the_run():
    assert set(STATUS_WORDS) == set(Run.Status.values), "a new status needs its words here"
    assert {status: status_words(status) for status in STOPS} == STOPS
    assert status_words("answered") == "Answered" and status_words("not_found") == "Not found"
    assert status_words("brand_new") == "Brand new", "an unknown status is still words, never the stored value"
    assert [value for value, _ in status_choices()] == Run.Status.values


def test_the_filter_reads_the_statuses_as_words_and_filters_by_the_stored_value(logged_in_client, user, collection):
    for status in STOPS:
        Run.objects.create(owner=user, collection=collection, question=f"Q {status}", status=status)
    html = logged_in_client.get("/runs/").content.decode()
    options = dict(re.findall(r'<option value="(\w+)"[^>]*>([^<]+)</option>', html.split('id="f-status"')[1]))
    assert {status: options[status] for status in STOPS} == STOPS
    assert not any(label in html for label in ENGINEER_LABELS), html
    assert html.count('<span class="badge deadline">Stopped: time limit</span>') == 1
    only = logged_in_client.get("/runs/", {"status": "round_cap"}).content.decode()
    assert "Q round_cap" in only and "Q deadline" not in only


def test_the_home_page_and_the_run_page_say_what_stopped_the_run(logged_in_client, user, collection):
    run = Run.objects.create(owner=user, collection=collection, question="Why?", status="no_new_passages")
    home = logged_in_client.get("/").content.decode()
    assert '<span class="badge no_new_passages">Stopped: no new passages</span>' in home
    page = logged_in_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'data-status="no_new_passages">Stopped: no new passages</span>' in page
    assert not any(label in home + page for label in ENGINEER_LABELS)


def test_the_filter_is_the_template_words():
    rendered = Template("{% load evidence_words %}{{ s|status_words }}").render(Context({"s": "budget"}))
    assert rendered == "Stopped: spending limit"


def test_the_words_need_no_migration(capsys):
    call_command("makemigrations", "evidence", "--check", "--dry-run", verbosity=1)  # exits 1 on a change
    assert "No changes detected" in capsys.readouterr().out
