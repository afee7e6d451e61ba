"""Taking an answer away: the Markdown export reads back to the stored quotes, BibTeX and CSL-JSON parse."""

from __future__ import annotations

import html
import json
import re

import bibtexparser
import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evidence.models import Document
from evidence.presenting.answer_formats import (
    AnswerExport,
    CitedSpan,
    Source,
    answer_markdown,
    bibtex,
    csl_items,
    markdown_text,
)

pytestmark = pytest.mark.django_db

TRICKY = "*not emphasis* [15, 43] <b>x</b> # not a heading & &amp; `code` _u_ \\ ~~s~~ | a | 2^3 {x}"


def blockquotes(markdown: str) -> list[str]:
    """The text of each blockquote, as a Markdown reader shows it."""
    rendered = MarkdownIt("commonmark").render(markdown)
    quotes = re.findall(r"<blockquote>\s*<p>(.*?)</p>\s*</blockquote>", rendered, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", q)) for q in quotes]


def rendered_text(markdown: str) -> str:
    rendered = MarkdownIt("commonmark").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


@pytest.mark.parametrize(
    "text",
    [
        TRICKY,
        "- not a list",
        "1. not a list",
        "+ 3",
        "= not a heading line",
        "10) item",
        "line one\nline two",
        "![img](x) [link](y)",
    ],
)
def test_markdown_text_reads_back_as_written(text):
    assert rendered_text(markdown_text(text)) == text


@given(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=60)
    .map(str.strip)
    .filter(lambda t: t and "  " not in t)
)
def test_any_printable_line_reads_back_as_written(text):
    assert rendered_text(markdown_text(text)) == text


def test_the_markdown_export_quotes_exactly_with_pages_and_audit_links():
    source = Source("paper-1", "A *starred* title", ("Ana Silva",), 2020)
    cited = [
        CitedSpan(1, source, TRICKY, 10, 10 + len(TRICKY), 4, "http://x/runs/1/audit?span=7#span"),
        CitedSpan(2, source, "Second quote.", 50, 63, None, "http://x/runs/1/audit?span=8#span"),
    ]
    export = AnswerExport(
        "What *is* it?",
        "Papers",
        "http://x/runs/1/",
        "short",
        "42 [ms]",
        0.81,
        [("It is 42 ms ", None), ("", 1), (" and more ", None), ("", 2), (".", None)],
        cited,
    )
    markdown = answer_markdown(export)
    assert blockquotes(markdown) == [TRICKY, "Second quote."]
    text = rendered_text(markdown)
    assert "What *is* it?" in text and "Short answer: 42 [ms] (confidence 0.81" in text
    assert "It is 42 ms [1] and more [2]." in text
    assert "A *starred* title, paper-1, page 4, characters 10–" in text
    assert "([check it in the audit](http://x/runs/1/audit?span=7#span))" in markdown


def test_bibtex_and_csl_json_parse_with_a_real_parser():
    sources = [
        Source(
            "2020.acl-main.207",
            "SPECTER: {Document}-level 100% #1 A_B $x$ ~ & \\ ^",
            ("Arman Cohan", "Doe, Jane"),
            2020,
            "10.18653/v1/2020.acl-main.207",
            "ACL",
        ),
        Source("same id", "Plain"),
        Source("same id", "Plain again"),
    ]
    library = bibtexparser.parse_string(bibtex(sources))
    assert library.failed_blocks == []
    entries = library.entries
    assert [e.key for e in entries] == ["cohan2020specter", "same_id", "same_id_2"]
    first = entries[0]
    assert first.entry_type == "article" and first["year"] == "2020" and first["journal"] == "ACL"
    assert first["author"] == "Cohan, Arman and Doe, Jane" and first["doi"] == "10.18653/v1/2020.acl-main.207"
    assert [e.entry_type for e in entries[1:]] == ["misc", "misc"], "nothing known beyond the title"
    decoded = bibtexparser.parse_string(
        bibtex(sources[:1]), append_middleware=[bibtexparser.middlewares.LatexDecodingMiddleware()]
    ).entries[0]["title"]
    assert decoded == sources[0].title.replace("^", "ˆ"), "LaTeX's special characters come back (^ as its accent)"
    items = json.loads(json.dumps(csl_items(sources)))
    assert items[0]["author"] == [{"family": "Cohan", "given": "Arman"}, {"family": "Doe", "given": "Jane"}]
    assert items[0]["issued"] == {"date-parts": [[2020]]} and items[0]["type"] == "article-journal"
    assert items[1] == {"id": "same id", "type": "document", "title": "Plain"}


def test_a_conference_paper_with_an_arxiv_id_is_an_inproceedings_entry_keyed_by_author_year_and_word():
    source = Source("2308.02943", "The PaperMage Toolkit", ("Kyle Lo", "Ivo H. M. van Stokkum"), 2023,
                    venue="Proceedings of EMNLP: System Demonstrations", eprint="2308.02943")  # fmt: skip
    [entry] = bibtexparser.parse_string(bibtex([source])).entries
    assert entry.entry_type == "inproceedings" and entry.key == "lo2023papermage"
    assert entry["author"] == "Lo, Kyle and van Stokkum, Ivo H. M." and entry["booktitle"].startswith("Proceedings")
    assert entry["eprint"] == "2308.02943" and entry["archivePrefix"] == "arXiv"
    [item] = csl_items([source])
    assert item["type"] == "paper-conference" and item["author"][1] == {"family": "van Stokkum", "given": "Ivo H. M."}
    assert item["URL"] == "https://arxiv.org/abs/2308.02943"
    journal = Source("x", "A title", venue="GLIA", kind="journal")
    assert bibtexparser.parse_string(bibtex([journal])).entries[0].entry_type == "article"


def test_the_run_page_offers_the_exports_and_they_read_back(logged_in_client, finished_run):
    page = logged_in_client.get(f"/runs/{finished_run.pk}/").content.decode()
    for ext in ("md", "bib", "json"):
        assert f'href="/runs/{finished_run.pk}/export.{ext}" download' in page
    assert f'data-copy-path="/runs/{finished_run.pk}/"' in page

    response = logged_in_client.get(f"/runs/{finished_run.pk}/export.md")
    assert response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"] == f'attachment; filename="run-{finished_run.pk}.md"'
    markdown = response.content.decode()
    span = finished_run.spans.get()
    assert blockquotes(markdown) == [span.quote]
    assert f"http://testserver/runs/{finished_run.pk}/audit?span={span.pk}#span" in markdown
    assert "Short answer:** Yes (confidence 0.88" in markdown

    entries = bibtexparser.parse_string(logged_in_client.get(f"/runs/{finished_run.pk}/export.bib").content.decode())
    document = Document.objects.get(pk=span.document_id)
    assert [e.key for e in entries.entries] == [document.docid]
    assert entries.entries[0]["title"].strip("{}") == document.title
    items = json.loads(logged_in_client.get(f"/runs/{finished_run.pk}/export.json").content)
    assert [i["id"] for i in items] == [document.docid]
    assert logged_in_client.get(f"/runs/{finished_run.pk}/export.docx").status_code == 404


def test_nobody_else_exports_your_run(client, other_user, finished_run):
    client.force_login(other_user)
    assert client.get(f"/runs/{finished_run.pk}/export.md").status_code == 404


def test_the_api_exports_each_format_and_refuses_others(finished_run, user):
    from django.test import Client

    from evidence.auth_keys import create_key

    api = Client(HTTP_AUTHORIZATION=f"Bearer {create_key(user, 'tests')[1]}")
    for fmt, media in (
        ("markdown", "text/markdown"),
        ("bibtex", "application/x-bibtex"),
        ("csl-json", "application/vnd.citationstyles.csl+json"),
    ):
        response = api.get(f"/api/runs/{finished_run.pk}/export?format={fmt}")
        assert response.status_code == 200 and response["Content-Type"].startswith(media), fmt
    assert api.get(f"/api/runs/{finished_run.pk}/export").content.decode().startswith("# Does caffeine")
    refused = api.get(f"/api/runs/{finished_run.pk}/export?format=docx")
    assert refused.status_code == 422
