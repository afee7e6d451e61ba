"""The audit view: exact highlight by offsets, pages, judgments behind a span, broken spans never guessed."""

from __future__ import annotations

import re

import pytest

from evidence.models import Document, Span
from evidence.views.audit import highlight_segments

pytestmark = pytest.mark.django_db


def marked(html: str) -> list[str]:
    return re.findall(r'<mark id="span">(.*?)</mark>', html, re.S)


def test_it_highlights_exactly_the_cited_characters(logged_in_client, finished_run):
    span = finished_run.spans.get()
    response = logged_in_client.get(f"/runs/{finished_run.pk}/audit?span={span.pk}")
    html = response.content.decode()
    assert response.status_code == 200
    assert marked(html) == [span.quote] == [span.document.text[span.start : span.end]]
    assert "Judgments behind this span" in html and "0.91" in html
    assert f'href="/runs/{finished_run.pk}/audit?span={span.pk}#span"' in html


def test_it_opens_the_first_citation_by_default(logged_in_client, finished_run):
    html = logged_in_client.get(f"/runs/{finished_run.pk}/audit").content.decode()
    assert marked(html) == [finished_run.spans.get().quote]


def test_it_shows_a_broken_span_without_a_highlight(logged_in_client, finished_run):
    span = finished_run.spans.get()
    Span.objects.filter(pk=span.pk).update(start=span.start + 3, end=span.end + 3)  # bypasses Span.save's check
    html = logged_in_client.get(f"/runs/{finished_run.pk}/audit?span={span.pk}").content.decode()
    assert "Broken span." in html
    assert "<mark" not in html
    assert "broken span" in html  # the badge in the citation list


def test_it_marks_pages_of_a_pdf(logged_in_client, user, collection, run_factory):
    text = "Page one text.\nPage two: the answer is 42 here.\nPage three."
    document = Document.objects.create(collection=collection, docid="paper", title="A paper", source_name="p.pdf",
                                       source_format="pdf", sha256="2" * 64, text=text,
                                       pages=[[1, 0, 15], [2, 15, 48], [3, 48, len(text)]])
    run = run_factory(user, collection, document, quote="the answer is 42")
    Span.objects.filter(run=run).update(page=2)
    html = logged_in_client.get(f"/runs/{run.pk}/audit").content.decode()
    assert marked(html) == ["the answer is 42"]
    assert "page 2" in html and 'aria-label="page 3"' in html


def test_it_serves_only_the_source_pane_to_htmx(logged_in_client, finished_run):
    span = finished_run.spans.get()
    html = logged_in_client.get(f"/runs/{finished_run.pk}/audit?span={span.pk}",
                                headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<section class="audit-source card" id="source"')
    assert marked(html) == [span.quote]


def test_it_404s_a_span_of_another_run(logged_in_client, finished_run, other_run):
    foreign = other_run.spans.get()
    assert logged_in_client.get(f"/runs/{finished_run.pk}/audit?span={foreign.pk}").status_code == 404


def test_segments_keep_the_mark_exact_across_pages():
    text = "abcdefghij"
    pieces = highlight_segments(text, 2, 7, [[1, 0, 4], [2, 4, 10]], True)
    assert pieces == [("text", "ab"), ("mark", "cdefg"), ("text", "hij")]  # the page break inside is left out
    pieces = highlight_segments(text, 6, 8, [[1, 0, 4], [2, 4, 10]], True)
    assert pieces == [("text", "abcd"), ("page", 2), ("text", "ef"), ("mark", "gh"), ("text", "ij")]
    assert "".join(v for k, v in highlight_segments(text, 1, 3, [], False) if k != "page") == text
    assert all(k != "mark" for k, _ in highlight_segments(text, 1, 3, [], False))
