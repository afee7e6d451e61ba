"""Shared helpers of the API tests: a finished run with a cited span, and events."""

from __future__ import annotations

from django.utils import timezone

from evidence import streams
from evidence.models import Document, Run, Span


def finished_run(owner, collection, document: Document, question: str = "Does caffeine delay sleep?") -> Run:
    """Return an answered run citing the document's first sentence, with a gapless event stream."""
    run = Run.objects.create(owner=owner, collection=collection, question=question, system="single_pass",
                             status=Run.Status.ANSWERED, started_at=timezone.now(), finished_at=timezone.now(),
                             answer={"explanation": f"It does [{document.docid}].", "exact_answer": "yes",
                                     "confidence": 0.8},
                             trajectory={"surfaced": [document.docid], "cited": [document.docid]})
    end = document.text.index(".") + 1
    span = Span.objects.create(run=run, document=document, start=0, end=end, quote=document.text[:end],
                               delivered=True)
    run.citations.create(span=span, answer_part=0, marker=f"[{document.docid}]")
    for kind in ("status", "search", "answer", "finished"):
        streams.emit(run.pk, kind, {"status": run.status} if kind == "finished" else {"k": kind})
    run.refresh_from_db()
    return run


def serve_asgi(app=None):
    """Start uvicorn with the project's ASGI app in a thread; return (base_url, stop)."""
    import socket
    import threading
    import time

    import uvicorn

    if app is None:
        from researchapp.asgi import application as app
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, name="uvicorn-api-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start within 10 s")
        time.sleep(0.05)

    def stop() -> None:
        from evidence.streams import close_readers

        server.should_exit = True
        thread.join(timeout=5)
        close_readers()  # the stream readers' connections, so the test database can be dropped

    return f"http://127.0.0.1:{port}", stop


def sse_events(lines, limit_s: float = 20.0) -> list[dict]:
    """Parse SSE lines into [{id, event, data}] until an `end` or `finished` event (or the time limit)."""
    import json
    import time

    found, current = [], {"id": None, "event": "message", "data": []}
    deadline = time.monotonic() + limit_s
    for line in lines:
        if time.monotonic() > deadline:
            break
        if line == "":
            if current["data"]:
                found.append({"id": current["id"], "event": current["event"],
                              "data": json.loads("\n".join(current["data"]))})
                if current["event"] in {"end", "finished"}:
                    break
            current = {"id": None, "event": "message", "data": []}
        elif line.startswith("id: "):
            current["id"] = line[4:]
        elif line.startswith("event: "):
            current["event"] = line[7:]
        elif line.startswith("data: "):
            current["data"].append(line[6:])
    return found
