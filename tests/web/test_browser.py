"""The four journeys in real Chromium: log in, upload two real PDFs, ask and watch it stream, audit, compare."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evidence import streams
from evidence.models import Run, Span

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
QUESTION = "How many papers are in the Semantic Scholar literature graph?"
# Judgments come from System 1, which only the dual system runs; another system can be set to debug the rest.
SYSTEM = os.environ.get("EVIDENCE_BROWSER_SYSTEM", "dual")
PACE_S = 0.25

# Records, in the page, when each timeline step is inserted and what the status said at that moment.
OBSERVER = """
window.__steps = [];
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.nodeType === 1 && node.matches && node.matches('li.step')) {
      const status = document.getElementById('run-status');
      window.__steps.push({seq: Number(node.dataset.seq), kind: node.dataset.kind, at: Date.now(),
                           status: status ? status.dataset.status : null,
                           live: !!document.querySelector('#run-page.live')});
    }
  }
}).observe(document, {childList: true, subtree: true});
"""


@pytest.fixture
def paced_runs(monkeypatch):
    """Pace the offline loop's events so a person (and this test) can watch them arrive; record commit times.

    The offline planner finishes a run over two papers in about half a second, faster than a page loads; a
    model-backed run takes tens of seconds. The pause comes after each commit, so it adds no latency.
    """
    from evidence.services import runs

    committed: dict[tuple[int, int], float] = {}
    original = runs.execute_run

    def paced_emit(run_id, kind, payload=None):
        event = streams.emit(run_id, kind, payload)
        committed[(run_id, event.seq)] = time.time() * 1000
        time.sleep(PACE_S)
        return event

    monkeypatch.setattr(runs, "execute_run", lambda run_id, **options: original(run_id, emit=paced_emit, **options))
    return committed


def shot(page: Page, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def ask(page: Page, base: str, question: str, system: str) -> int:
    page.goto(f"{base}/ask")
    page.fill("#id_question", question)
    page.select_option("#id_system", system)
    page.select_option("#id_searcher", "hybrid")
    page.click("button:has-text('Ask')")
    page.wait_for_url("**/runs/*/")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def test_the_four_journeys(page: Page, asgi_server, celery_worker, user, shared_data, paced_runs, capsys):
    base = asgi_server
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(30_000)

    # Log in through the login page.
    page.goto(f"{base}/")
    expect(page).to_have_url(f"{base}/accounts/login/?next=/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "alice-password")
    shot(page, "01-login")
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Your research desk")

    # Create a collection and upload the two real PDFs; wait on the progress page.
    page.goto(f"{base}/collections/")
    page.fill("#id_name", "Papers")
    page.click("button:has-text('Create collection')")
    expect(page.locator("h1")).to_have_text("Papers")
    pdfs = sorted((shared_data / "papers" / "pdf").glob("*.pdf"))
    assert len(pdfs) == 2
    page.set_input_files("#id_files", [str(p) for p in pdfs])
    shot(page, "02-collection-upload")
    page.click("button:has-text('Upload and index')")
    page.wait_for_url("**/uploads/*/")
    expect(page.locator("#progress tr.file")).to_have_count(2)
    shot(page, "03-upload-progress")
    expect(page.locator("#progress")).to_have_attribute("data-status", "done", timeout=300_000)
    expect(page.locator("#progress .file-failed")).to_have_count(0)
    shot(page, "04-upload-done")
    page.click("text=Browse the documents")
    expect(page.locator("table.documents tbody tr")).to_have_count(2)
    shot(page, "05-documents")
    page.locator("table.documents tbody a").first.click()
    if page.locator("figure.doc-page").count():  # a PDF opens on its pages, its text folded below them
        page.click("details.doc-passages > summary")
    expect(page.locator(".passage").first).to_be_visible()
    shot(page, "06-document", full=False)

    # Ask, and watch search and judgment steps arrive while the run is still running.
    page.add_init_script(OBSERVER)
    run_a = ask(page, base, QUESTION, SYSTEM)
    expect(page.locator("li.step[data-kind='search']").first).to_be_visible()
    shot(page, "07-run-live")
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=120_000)
    shot(page, "08-run-finished")
    run = Run.objects.get(pk=run_a)
    assert run.status == Run.Status.ANSWERED, f"run {run_a} ended {run.status}: {run.error}"
    steps = page.evaluate("window.__steps")
    live = [s for s in steps if s["live"]]
    finished_at = min(s["at"] for s in live if s["kind"] == "finished")
    for kind in ["search", *(["judgment"] if SYSTEM == "dual" else [])]:
        seen = [s for s in live if s["kind"] == kind and s["status"] in ("queued", "running")]
        assert seen, f"no {kind} step arrived while the run was running: {steps}"
        assert min(s["at"] for s in seen) < finished_at
    latencies = sorted(s["at"] - paced_runs[(run_a, s["seq"])] for s in live if (run_a, s["seq"]) in paced_runs)
    with capsys.disabled():
        print(
            f"\nbrowser latency commit->DOM over {len(latencies)} events: p50 {statistics.median(latencies):.0f} ms,"
            f" max {latencies[-1]:.0f} ms"
        )

    # Audit: open a citation; the highlighted text is the cited quote, character for character.
    citation = page.locator("ol.citations a.cite").first
    span = Span.objects.get(pk=int(citation.get_attribute("data-span")))
    citation.click()
    page.wait_for_url(f"**/runs/{run_a}/audit?span={span.pk}*")
    mark = page.locator("mark#span")
    expect(mark).to_be_in_viewport()
    assert mark.text_content() == span.quote == span.document.text[span.start : span.end]
    shot(page, "09-audit", full=False)
    page.keyboard.press("j")  # the next citation, swapped in by htmx
    if Span.objects.filter(run_id=run_a, citations__isnull=False).distinct().count() > 1:
        expect(page.locator("#source")).not_to_have_attribute("data-span", str(span.pk))
        other = Span.objects.get(pk=int(page.locator("#source").get_attribute("data-span")))
        assert page.locator("mark#span").text_content() == other.quote
    page.set_viewport_size({"width": 820, "height": 1100})
    shot(page, "10-audit-tablet", full=False)
    page.set_viewport_size({"width": 1366, "height": 900})

    # Compare: the same question with another system.
    run_b = ask(page, base, QUESTION, "single_pass")
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=120_000)
    page.goto(f"{base}/compare")
    page.select_option("#run-a", str(run_a))
    page.select_option("#run-b", str(run_b))
    page.click("button:has-text('Compare')")
    expect(page.locator("svg.funnel-chart rect.bar-a")).to_have_count(6)
    expect(page.locator("#cites-shared")).to_be_visible()
    shot(page, "11-compare")

    page.goto(f"{base}/runs/")
    page.select_option("#f-system", "single_pass")
    expect(page.locator("#runs-table tbody tr")).to_have_count(1)
    shot(page, "12-runs")
