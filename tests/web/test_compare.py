"""Compare two runs: citations shared / only A / only B, metrics, timelines and the SVG recall funnel."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs(user, collection, document, run_factory):
    a = run_factory(user, collection, document, system="dual")
    b = run_factory(user, collection, document, question="When does caffeine act?", system="single_pass",
                    quote="Caffeine blocks adenosine receptors.")
    return a, b


def group(html: str, name: str) -> str:
    return re.search(rf'id="cites-{name}">(.*?)</div>\s*(?:<div class="cite-group"|</div>)', html, re.S).group(1)


def test_it_puts_two_answers_side_by_side(logged_in_client, two_runs):
    a, b = two_runs
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert a.question in html and b.question in html
    assert "It delays sleep onset by about an hour." in group(html, "only_a")
    assert "Caffeine blocks adenosine receptors." in group(html, "only_b")
    assert "None." in group(html, "shared")


def test_it_finds_shared_citations(logged_in_client, user, collection, document, run_factory):
    a = run_factory(user, collection, document)
    b = run_factory(user, collection, document, system="pi_serini")
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    assert "It delays sleep onset" in group(html, "shared")


def test_it_draws_the_recall_funnel_as_svg(logged_in_client, two_runs):
    a, b = two_runs
    html = logged_in_client.get(f"/compare?a={a.pk}&b={b.pk}").content.decode()
    svg = re.search(r"<svg class=\"funnel-chart\".*?</svg>", html, re.S).group(0)
    for stage in ("surfaced", "previewed", "opened", "inspected", "delivered", "cited"):
        assert f">{stage}</text>" in svg
    assert svg.count('class="bar-a"') == 6 and svg.count('class="bar-b"') == 6
    assert 'width="360"' in svg  # the largest count fills the scale


def test_it_offers_run_selectors(logged_in_client, two_runs):
    html = logged_in_client.get("/compare").content.decode()
    assert 'name="a"' in html and 'name="b"' in html
    assert f'value="{two_runs[0].pk}"' in html


def test_it_404s_for_garbage_ids(logged_in_client, two_runs):
    assert logged_in_client.get(f"/compare?a=x&b={two_runs[1].pk}").status_code == 404
