"""The run list: filters by collection, system and status, an htmx partial, only the owner's runs."""

from __future__ import annotations

import pytest

from evidence.models import Collection, Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs(user, collection, other_user):
    other = Collection.objects.create(owner=user, name="Other")
    theirs = Collection.objects.create(owner=other_user, name="Theirs")
    return [
        Run.objects.create(owner=user, collection=collection, question="Q dual answered", system="dual",
                           status="answered"),
        Run.objects.create(owner=user, collection=other, question="Q single failed", system="single_pass",
                           status="failed"),
        Run.objects.create(owner=other_user, collection=theirs, question="Q mallory", system="dual"),
    ]


def test_it_lists_only_my_runs(logged_in_client, runs):
    html = logged_in_client.get("/runs/").content.decode()
    assert "Q dual answered" in html and "Q single failed" in html and "Q mallory" not in html


@pytest.mark.parametrize("query, shown, hidden", [
    ("system=dual", "Q dual answered", "Q single failed"),
    ("status=failed", "Q single failed", "Q dual answered"),
])
def test_it_filters(logged_in_client, runs, query, shown, hidden):
    html = logged_in_client.get(f"/runs/?{query}").content.decode()
    assert shown in html and hidden not in html


def test_it_filters_by_collection(logged_in_client, runs):
    html = logged_in_client.get(f"/runs/?collection={runs[1].collection_id}").content.decode()
    assert "Q single failed" in html and "Q dual answered" not in html


def test_it_serves_the_table_to_htmx(logged_in_client, runs):
    html = logged_in_client.get("/runs/?system=dual", headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<section class="card" id="runs-table">')
    assert "Q dual answered" in html
