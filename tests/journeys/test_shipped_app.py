"""A new user's journey on the app as `make run` starts it, in real Chromium.

Log in, create a collection, upload a zip of the real papers with bad files among them through the upload form,
watch each file end, ask a question and watch it research, audit a cited span, compare two runs. Any step a user
takes that breaks fails here (the upload step once failed for every file under the shipped prefork worker).
"""

from __future__ import annotations

import itertools
import re
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.journey]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots" / "journey"
QUESTION = "How many papers are in the Semantic Scholar literature graph?"
BAD = ("truncated.pdf", "random.pdf")  # in the zip; empty.txt is uploaded beside it
LEAKS = re.compile(r"\b[A-Z][a-zA-Z]+(Error|Exception)\b|Traceback|/var/tmp|/work/|\.upload\b")


# Read a page stream with EventSource until its "finished" message (or 30 s), as htmx's SSE extension does.
STREAM_JS = """(url) => new Promise((resolve) => {
  const out = {steps: [], finished: false};
  const source = new EventSource(url);
  const done = () => { source.close(); resolve(out); };
  source.addEventListener("step", (e) => out.steps.push(e.data));
  source.addEventListener("finished", () => { out.finished = true; done(); });
  setTimeout(done, 30000);
})"""


def real_papers(shared_data: Path) -> list[Path]:
    """The 13 real papers: 2 PDFs, 3 JATS, 8 S2ORC (the PDFs' own .s2orc.json parses are the same papers)."""
    papers = shared_data / "papers"
    return sorted((papers / "pdf").glob("*.pdf")) + sorted((papers / "jats").glob("*.nxml")) + sorted(
        (papers / "s2orc_json").glob("*.json"))


def upload_zip(shared_data: Path, folder: Path) -> Path:
    papers = real_papers(shared_data)
    assert len(papers) == 13
    pdf = papers[0].read_bytes()
    path = folder / "papers.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for paper in papers:
            zf.writestr(f"papers/{paper.name}", paper.read_bytes())
        zf.writestr("papers/truncated.pdf", pdf[: len(pdf) // 2])
        zf.writestr("papers/random.pdf", bytes((i * 7919 + 13) % 256 for i in range(20_000)))
    return path


def shot(page: Page, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def ask(page: Page, base: str, collection: str, system: str) -> int:
    page.goto(f"{base}/ask")
    page.fill("#id_question", QUESTION)
    page.select_option("#id_collection", label=collection)
    page.select_option("#id_system", system)
    page.click("button:has-text('Ask')")
    page.wait_for_url("**/runs/*/")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def test_a_new_user_uploads_real_papers_asks_audits_and_compares(page: Page, shipped_app, shared_data, tmp_path):
    base = shipped_app.base_url
    page.set_viewport_size({"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)

    # Log in as the demo user `make run` creates.
    page.goto(f"{base}/")
    page.fill("#id_username", "demo")
    page.fill("#id_password", "demo-password")
    page.click("button:has-text('Log in')")
    expect(page.locator("h1")).to_have_text("Your research desk")

    # A new collection; the zip (13 papers + 2 bad files) and an empty file through the upload form.
    page.goto(f"{base}/collections/")
    page.fill("#id_name", "Journey papers")
    page.click("button:has-text('Create collection')")
    expect(page.locator("h1")).to_have_text("Journey papers")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    page.set_input_files("#id_files", [str(upload_zip(shared_data, tmp_path)), str(empty)])
    page.click("button:has-text('Upload and index')")
    page.wait_for_url("**/uploads/*/")
    shot(page, "01-upload-started")

    # Every member of the zip gets its own row and ends; the job is partial, the bad files say why in plain words.
    progress = page.locator("#progress")
    expect(progress).to_have_attribute("data-status", re.compile("done|partial|failed"), timeout=420_000)
    shot(page, "02-upload-ended")
    if progress.get_attribute("data-status") != "partial":
        pytest.fail(f"the upload ended {progress.get_attribute('data-status')}: "
                    f"{page.locator('#progress table').inner_text()[:3000]}\n{shipped_app.log_tail()}")
    expect(page.locator("#progress tr.file.member")).to_have_count(15)
    expect(page.locator("#progress tr.file-unpacked")).to_have_count(1)
    failed = page.locator("#progress tr.file-failed")
    expect(failed).to_have_count(3)
    for row in failed.all():
        name, error = row.get_attribute("data-name"), row.locator(".error").inner_text()
        assert any(name.endswith(bad) for bad in (*BAD, "empty.txt")), name
        assert error.startswith(name), (name, error)
        assert not LEAKS.search(error), error
    expect(page.locator("#progress tr.file-done")).to_have_count(13)
    expect(page.locator("#job-outcome")).to_contain_text("3 of 16 files could not be ingested")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366, "the job page fits the window"

    page.click("text=Browse the documents")
    expect(page.locator("table.documents tbody tr")).to_have_count(13)

    # Ask with System 1, and see the research: searches, judgments, evidence with coordinates, an answer.
    run_a = ask(page, base, "Journey papers", "dual")
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=180_000)
    shot(page, "03-run")
    # Answer first: the short answer (or plainly none) opens the page, above the fold, at a laptop's and a phone's
    # width, with nothing wider than the screen; a withheld or Not found answer shows no guess as the answer.
    for width, height in ((1366, 768), (360, 740)):
        page.set_viewport_size({"width": width, "height": height})
        lead = page.locator("#short-answer")
        box = lead.bounding_box()
        assert box is not None and box["y"] < height, (width, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"the run page fits {width} px"
        if lead.get_attribute("data-state") != "short":
            assert not lead.locator("mark.short-answer").count(), "no candidate shown as an answer"
    page.set_viewport_size({"width": 1366, "height": 900})
    # The cited papers as BibTeX a reference manager reads, with authors and year where the paper states them.
    import bibtexparser

    library = bibtexparser.parse_string(page.request.get(f"{base}/runs/{run_a}/export.bib").text())
    assert library.entries and not library.failed_blocks
    assert any("author" in e.fields_dict and "year" in e.fields_dict for e in library.entries), [
        e.fields_dict.keys() for e in library.entries]
    # "Ask again" carries the question and the collection.
    page.click("#ask-again")
    expect(page.locator("#id_question")).to_have_value(QUESTION)
    assert "Journey papers" in page.locator("#id_collection option:checked").inner_text()
    page.goto(f"{base}/runs/{run_a}/")
    page.click("#research > summary")  # the research is folded below the answer once the run ended
    for kind in ("search", "judgment", "evidence"):
        expect(page.locator(f"li.step[data-kind='{kind}']").first).to_be_visible()
    # The live stream as the browser's EventSource reads it from uvicorn: each step, then the end.
    streamed = page.evaluate(STREAM_JS, f"{base}/runs/{run_a}/stream?after=0")
    kinds = {re.search(r'data-kind="(\w+)"', step).group(1) for step in streamed["steps"]}
    assert {"search", "judgment", "evidence"} <= kinds and streamed["finished"], (kinds, streamed["finished"])
    # The first question on fresh papers embeds their sentences; a progress event breaks every silence of 2 s
    # (the bound leaves a second for a busy CI machine; the closing note reports the gaps measured).
    events = page.request.get(f"{base}/api/runs/{run_a}/events").json()["events"]
    times = [datetime.fromisoformat(e["created_at"]) for e in events]
    gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(times)]
    print(f"run {run_a}: {len(events)} events, longest silence {max(gaps):.2f} s")
    assert max(gaps) <= 4.0, [(e["kind"], round(g, 1)) for e, g in zip(events[1:], gaps, strict=True) if g > 3]
    answer = page.request.get(f"{base}/api/runs/{run_a}/answer").json()
    assert answer["status"] == "answered", answer
    # The short answer was read by the model in the worker's reader process, and the page says so.
    if shipped_app.reader != "extractive":
        expect(page.locator("#run-page .reader-note")).to_contain_text("language model")
    assert answer["citations"], "the answer cites evidence"

    # Audit: the highlighted text is the cited span, character for character, and the source agrees.
    page.locator("ol.citations a.cite").first.click()
    page.wait_for_url(f"**/runs/{run_a}/audit?span=*")
    mark = page.locator("mark#span")
    expect(mark).to_be_in_viewport()
    span_id = int(page.locator("#source").get_attribute("data-span"))
    span = next(c["span"] for c in answer["citations"] if c["span"]["id"] == span_id)
    source = page.request.get(
        f"{base}/api/documents/{span['document_id']}/text?start={span['start']}&end={span['end']}").json()
    assert mark.text_content() == span["quote"] == source["text"]
    boxes = page.locator("svg.span-boxes rect")
    if boxes.count():  # a PDF: the span's boxes on the page, fitted to its pane, in view too
        expect(boxes.first).to_be_in_viewport()
    shot(page, "04-audit", full=False)
    # On a phone the audit opens on the span too, a few screens tall (the text around the span, not the paper).
    page.set_viewport_size({"width": 360, "height": 740})
    page.reload()
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    page.wait_for_timeout(200)
    expect(boxes.first if boxes.count() else mark).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollHeight") < 10 * 740
    expect(page.locator(".keys-hint")).to_be_hidden()
    shot(page, "04-audit-phone", full=False)
    page.set_viewport_size({"width": 1366, "height": 900})

    # Compare with a run of another system.
    run_b = ask(page, base, "Journey papers", "single_pass")
    expect(page.locator("#run-page.finished")).to_be_visible(timeout=180_000)
    page.goto(f"{base}/compare")
    page.select_option("#run-a", str(run_a))
    page.select_option("#run-b", str(run_b))
    page.click("button:has-text('Compare')")
    expect(page.locator("svg.funnel-chart rect.bar-a")).to_have_count(6)
    # The verdict first: both short answers (or none) side by side, and whether they agree.
    expect(page.locator("#verdict .verdict-side")).to_have_count(2)
    expect(page.locator("#verdict")).to_contain_text(re.compile("agree|disagree|only one|Neither|neither", re.I))
    shot(page, "05-compare")
    # The runs list names each run's short answer (or that there is none).
    page.goto(f"{base}/runs/")
    expect(page.locator("td.answer-cell").first).not_to_be_empty()
    assert not [e for e in errors if "favicon" not in e], errors
