"""A page typed with a trailing slash it does not take redirects to the page; a URL that is no page stays a 404."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db


def page_routes(patterns=None, prefix: str = "") -> list[str]:
    """Every route of the site's own URLs with no parameter and no trailing slash ("ask", "compare", "health")."""
    routes = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver) and not route.startswith(("admin", "api")):
            routes += page_routes(pattern.url_patterns, prefix + route)
        elif isinstance(pattern, URLPattern) and "<" not in route and not route.startswith("^"):
            routes.append(prefix + route)
    return [route for route in routes if route and not route.endswith("/")]


def test_the_ask_and_compare_pages_take_a_slash(logged_in_client):
    ask = logged_in_client.get("/ask/")
    assert ask.status_code == 301 and ask["Location"] == "/ask"
    compare = logged_in_client.get("/compare/?a=1&b=2")
    assert compare.status_code == 301 and compare["Location"] == "/compare?a=1&b=2"
    assert logged_in_client.get("/ask/", follow=True).redirect_chain == [("/ask", 301)]
    assert logged_in_client.get("/ask/", follow=True).status_code == 200


def test_every_page_without_a_slash_redirects_from_its_slashed_url(logged_in_client):
    routes = page_routes()
    assert {"ask", "compare", "health", "live", "metrics", "ask/documents"} <= set(routes)
    for route in routes:
        response = logged_in_client.get(f"/{route}/")
        assert (response.status_code, response.get("Location")) == (301, f"/{route}"), route


def test_a_page_with_a_parameter_redirects_too(logged_in_client, run):
    response = logged_in_client.get(f"/runs/{run.pk}/audit/?span=3")
    assert response.status_code == 301 and response["Location"] == f"/runs/{run.pk}/audit?span=3"


def test_someone_logged_out_is_sent_to_the_page_which_asks_for_a_login(client):
    response = client.get("/ask/")
    assert response.status_code == 301 and response["Location"] == "/ask"
    assert client.get("/ask").status_code == 302 and "/accounts/login/" in client.get("/ask")["Location"]


def test_a_url_that_is_no_page_stays_a_404(logged_in_client):
    for url in ("/nowhere/", "/ask/nowhere/", "/ask//", "/runs/x/audit/"):
        assert logged_in_client.get(url).status_code == 404, url
    for path in ("//ask/", "//evil.example/"):  # never a redirect to another host
        assert logged_in_client.get("/", PATH_INFO=path).status_code == 404, path


def test_only_a_read_is_redirected(logged_in_client):
    assert logged_in_client.post("/ask/", {"question": "x"}).status_code == 404  # a form's body is not re-sent


def test_pages_with_a_slash_keep_it(logged_in_client):
    assert logged_in_client.get("/runs/").status_code == 200
    response = logged_in_client.get("/runs")
    assert response.status_code == 301 and response["Location"] == "/runs/"  # Django's APPEND_SLASH
