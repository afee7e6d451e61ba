"""The audit view: exact highlight by offsets, pages, judgments behind a span, broken spans never guessed."""

from __future__ import annotations

import re

import pytest

from evidence.models import Document, Span
from evidence.views.audit import MORE, WINDOW_AFTER, WINDOW_BEFORE, highlight_segments, more_text, text_window

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


def paper_text(paragraphs: int = 120) -> str:
    return "\n\n".join(f"Paragraph {i}: " + "words of the paper " * (5 + i % 7) for i in range(paragraphs))


def test_the_text_window_is_whole_paragraphs_around_the_span_and_more_pieces_tile_the_text():
    text = paper_text()
    start = text.index("Paragraph 60:")
    end = start + len("Paragraph 60: words")
    lo, hi = text_window(text, start, end)
    assert lo <= start - WINDOW_BEFORE and end + WINDOW_AFTER <= hi
    assert text[lo:].startswith("Paragraph ") and text[hi:].startswith("\n\n")
    assert hi - lo < 2 * (WINDOW_BEFORE + WINDOW_AFTER)
    pieces, edge = [], lo
    while edge > 0:
        a, b = more_text(text, before=edge)
        assert b == edge and a < b and b - a <= 2 * MORE
        pieces.insert(0, text[a:b])
        edge = a
    pieces.append(text[lo:hi])
    edge = hi
    while edge < len(text):
        a, b = more_text(text, after=edge)
        assert a == edge and b > a
        pieces.append(text[a:b])
        edge = b
    assert "".join(pieces) == text
    assert text_window("short text", 2, 5) == (0, 10)


def test_segments_of_a_window_show_each_page_break_once():
    text = "abcdefghij"
    pages = [[1, 0, 4], [2, 4, 10]]
    first = highlight_segments(text, 6, 8, pages, True, 0, 4)
    second = highlight_segments(text, 6, 8, pages, True, 4, 10)
    assert first == [("text", "abcd")]
    assert second == [("page", 2), ("text", "ef"), ("mark", "gh"), ("text", "ij")]


def test_it_opens_on_the_text_around_the_span_and_loads_more_on_demand(logged_in_client, user, collection,
                                                                       run_factory):
    text = paper_text()
    document = Document.objects.create(collection=collection, docid="long", title="A long paper",
                                       source_name="long.txt", source_format="text", sha256="3" * 64, text=text)
    quote = "Paragraph 60: words"
    run = run_factory(user, collection, document, quote=quote)
    url = f"/runs/{run.pk}/audit"
    html = logged_in_client.get(url).content.decode()
    assert marked(html) == [quote]
    assert "Paragraph 59:" in html and "Paragraph 10:" not in html and "Paragraph 110:" not in html
    lo, hi = text_window(text, text.index(quote), text.index(quote) + len(quote))
    assert f"before={lo}" in html and f"after={hi}" in html and "text=all#span" in html

    earlier = logged_in_client.get(f"{url}?before={lo}", headers={"HX-Request": "true"}).content.decode()
    a, _ = more_text(text, before=lo)
    assert earlier.startswith('<a class="more-text before"') and f"before={a}" in earlier
    assert earlier.endswith(text[a:lo].replace("'", "&#x27;").replace('"', "&quot;"))
    later = logged_in_client.get(f"{url}?after={hi}", headers={"HX-Request": "true"}).content.decode()
    assert later.startswith(text[hi : hi + 40]) and "<mark" not in later

    whole = logged_in_client.get(f"{url}?text=all").content.decode()
    assert "Paragraph 0:" in whole and "Paragraph 119:" in whole and "more-text" not in whole
    for bad in ("before=x", f"after={len(text) + 1}", "before=-5"):
        assert logged_in_client.get(f"{url}?{bad}", headers={"HX-Request": "true"}).status_code == 404, bad
