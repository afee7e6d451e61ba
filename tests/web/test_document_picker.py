"""The Ask page's document picker: titles of the chosen collection only, chips for ids already chosen."""

from __future__ import annotations

import pytest

from evidence.models import Document

pytestmark = pytest.mark.django_db


@pytest.fixture
def papers(collection):
    for i, title in enumerate(["Caffeine and sleep", "Sleep <b>spindles</b> in mice", "Graphs of papers"]):
        Document.objects.create(collection=collection, docid=f"p{i}", title=title, source_name=f"{i}.txt",
                                source_format="text", sha256=str(i) * 64, text=title)
    return collection


def test_it_finds_titles_by_words(logged_in_client, papers):
    html = logged_in_client.get(f"/ask/documents?collection={papers.pk}&q=sleep").content.decode()
    assert 'data-docid="p0"' in html and 'data-docid="p1"' in html and 'data-docid="p2"' not in html
    assert "<b>spindles" not in html and "&lt;b&gt;spindles" in html


def test_it_says_when_nothing_matches(logged_in_client, papers):
    html = logged_in_client.get(f"/ask/documents?collection={papers.pk}&q=quantum").content.decode()
    assert "No title in this collection contains “quantum”" in html


def test_it_refuses_another_users_collection(client, other_user, papers):
    client.force_login(other_user)
    assert client.get(f"/ask/documents?collection={papers.pk}&q=sleep").status_code == 404


def test_it_shows_chosen_documents_as_chips(logged_in_client, papers):
    html = logged_in_client.get(f"/ask?collection={papers.pk}&documents=p2,ghost").content.decode()
    assert '<li class="chip" data-docid="p2"><span class="chip-title">Graphs of papers</span>' in html
    assert '<li class="chip unknown" data-docid="ghost">' in html
    assert 'type="hidden" name="documents" value="p2,ghost"' in html
