"""Every page at phone, tablet and desktop widths in Chromium: nothing wider than the viewport, navigation reachable."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from evidence.models import Evaluation, IngestFile, IngestJob
from tests.web.test_pages_browser import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Elements whose right edge passes the viewport (tables may scroll inside their own box, so their cells are not).
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const inScroller = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') return true;
    }
    return false;
  };
  return Array.from(document.querySelectorAll('body *')).filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > width + 1 && !inScroller(el) && getComputedStyle(el).position !== 'fixed';
  }).slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') +
    ' right=' + Math.round(el.getBoundingClientRect().right));
}"""


@pytest.mark.parametrize("width", [360, 768, 1366])
def test_no_page_is_wider_than_the_screen(
    page: Page, asgi_server, user, collection, document, run_factory, session_cookie, width
):
    run = run_factory(user, collection, document)
    other = run_factory(
        user,
        collection,
        document,
        question="How long does caffeine delay sleep?",
        system="single_pass",
        quote="Caffeine blocks adenosine receptors.",
    )
    job = IngestJob.objects.create(
        owner=user, collection=collection, status=IngestJob.Status.DONE, files_total=2, files_done=1, files_failed=1
    )
    IngestFile.objects.create(
        job=job,
        name="a-rather-long-paper-name-2024-final-version.pdf",
        status=IngestFile.Status.FAILED,
        error="a-rather-long-paper-name.pdf is not a PDF: its first bytes are not %PDF; upload the paper's PDF file.",
    )
    evaluation = Evaluation.objects.create(
        owner=user,
        benchmark="scifact",
        system="dual",
        collection=collection,
        status="done",
        summary={"ndcg@10": 0.7, "questions": 3},
    )
    login(page, asgi_server, session_cookie)
    page.set_viewport_size({"width": width, "height": 800})
    pages = {
        "home": "/", "ask": f"/ask?collection={collection.pk}", "runs": "/runs/", "run": f"/runs/{run.pk}/",
        "audit": f"/runs/{run.pk}/audit", "compare": f"/compare?a={run.pk}&b={other.pk}",
        "collections": "/collections/", "collection": f"/collections/{collection.pk}/", "job": f"/uploads/{job.pk}/",
        "document": f"/documents/{document.pk}/", "evaluations": "/evaluations/",
        "evaluation": f"/evaluations/{evaluation.pk}/", "keys": "/keys/",
    }  # fmt: skip
    too_wide = {}
    for name, path in pages.items():
        response = page.goto(asgi_server + path)
        assert response.status == 200, (name, response.status)
        if found := page.evaluate(OVERFLOWING):
            too_wide[name] = found
        if width == 360:
            shot(page, f"phone-{name}", full=False)
    assert too_wide == {}
    if width == 360:  # the navigation folds into a menu button that opens it
        page.goto(asgi_server + "/runs/")
        menu = page.locator("button.menu-toggle")
        expect(menu).to_be_visible()
        expect(page.locator("nav[aria-label=Main] a:has-text('Collections')")).to_be_hidden()
        menu.click()
        expect(page.locator("nav[aria-label=Main] a:has-text('Collections')")).to_be_visible()
