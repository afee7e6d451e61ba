"""Load test on loopback: concurrent runs through the API while many SSE streams watch them.

`python bench/load_test.py [--runs 20] [--streams 50] [--timeout 240]` starts its own uvicorn and Celery worker
on 127.0.0.1 against a separate database (evidence_bench, migrated on first use), creates the runs through
POST /api/runs, opens the streams, polls run status, and prints one JSON line: throughput, p50/p95 latencies,
errors, and lost or duplicated events (every stream's seqs are checked against the run's stored events).
Counts and time are bounded; nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ["How much does caffeine reduce total sleep time?", "Does walking improve memory in older adults?",
             "What did the Mediterranean diet trial find?", "How does screen time affect children?"]


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    streamed: dict[int, list[list[int]]] = field(default_factory=dict)  # run id -> seqs seen by each stream
    delivery_s: list[float] = field(default_factory=list)  # event written -> received by a stream

    def timed(self, name: str, seconds: float) -> None:
        self.latencies.setdefault(name, []).append(seconds)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)


async def create_run(client: httpx.AsyncClient, key: str, collection_id: int, question: str, system: str,
                     figures: Figures) -> int | None:
    started = time.perf_counter()
    try:
        response = await client.post("/api/runs", headers={"Authorization": f"Bearer {key}"},
                                     json={"collection_id": collection_id, "question": question, "system": system,
                                           "searcher": "bm25"})
    except httpx.HTTPError as error:
        figures.errors.append(f"create: {type(error).__name__}: {error}")
        return None
    figures.timed("create_run", time.perf_counter() - started)
    if response.status_code != 201:
        figures.errors.append(f"create: {response.status_code} {response.text[:200]}")
        return None
    return response.json()["id"]


async def watch(base_url: str, key: str, run_id: int, figures: Figures, deadline: float) -> None:
    """Follow one run's SSE stream to its end, reconnecting after Last-Event-ID if the stream drops."""
    from datetime import datetime

    seen: list[int] = []
    figures.streamed.setdefault(run_id, []).append(seen)
    opened = time.perf_counter()
    async with httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(30, read=60)) as client:
        while time.monotonic() < deadline:
            headers = {"Authorization": f"Bearer {key}"}
            if seen:
                headers["Last-Event-ID"] = str(seen[-1])
            try:
                async with client.stream("GET", f"/api/runs/{run_id}/stream", headers=headers) as response:
                    if response.status_code == 204:
                        return
                    if response.status_code != 200:
                        figures.errors.append(f"stream {run_id}: {response.status_code}")
                        return
                    event = ""
                    async for line in response.aiter_lines():
                        if line.startswith("event: "):
                            event = line[7:]
                        elif line.startswith("data: ") and event not in {"", "end"}:
                            data = json.loads(line[6:])
                            if not seen:
                                figures.timed("stream_first_event", time.perf_counter() - opened)
                            seen.append(data["seq"])
                            written = datetime.fromisoformat(data["created_at"]).timestamp()
                            figures.delivery_s.append(max(0.0, time.time() - written))
                        elif line == "":
                            if event in {"finished", "end"}:
                                return
                            event = ""
            except httpx.HTTPError as error:
                figures.errors.append(f"stream {run_id}: {type(error).__name__}")
                await asyncio.sleep(0.5)
        figures.errors.append(f"stream {run_id}: still open at the deadline")


async def poll(base_url: str, key: str, run_id: int, figures: Figures, deadline: float) -> str:
    """Poll GET /api/runs/{id} (a second kind of load) until the run ends; return its status."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                response = await client.get(f"/api/runs/{run_id}", headers={"Authorization": f"Bearer {key}"})
            except httpx.HTTPError as error:
                figures.errors.append(f"poll {run_id}: {type(error).__name__}")
                await asyncio.sleep(0.5)
                continue
            figures.timed("get_run", time.perf_counter() - started)
            if response.status_code != 200:
                figures.errors.append(f"poll {run_id}: {response.status_code}")
            elif response.json()["status"] not in {"queued", "running"}:
                return response.json()["status"]
            await asyncio.sleep(0.5)
    return "timeout"


async def stored_seqs(base_url: str, key: str, run_id: int) -> list[int]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        response = await client.get(f"/api/runs/{run_id}/events?limit=1000",
                                    headers={"Authorization": f"Bearer {key}"})
        return [event["seq"] for event in response.json()["events"]]


async def drive(base_url: str, users: list[tuple[str, int]], runs: int, streams: int, timeout_s: float,
                system: str = "pi_serini") -> dict:
    """Create `runs` runs at once (spread over the users' keys), watch them with `streams` streams; return figures."""
    figures = Figures()
    deadline = time.monotonic() + timeout_s
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        owners = [users[i % len(users)] for i in range(runs)]
        ids = await asyncio.gather(*(create_run(client, key, collection, QUESTIONS[i % len(QUESTIONS)], system,
                                                figures) for i, (key, collection) in enumerate(owners)))
    created = [(run_id, owners[i][0]) for i, run_id in enumerate(ids) if run_id is not None]
    watchers = [watch(base_url, created[i % len(created)][1], created[i % len(created)][0], figures, deadline)
                for i in range(streams)] if created else []
    pollers = [poll(base_url, key, run_id, figures, deadline) for run_id, key in created]
    results = await asyncio.gather(*watchers, *pollers)
    elapsed = time.perf_counter() - started
    statuses = results[len(watchers):]
    lost = duplicated = 0
    for run_id, key in created:
        expected = await stored_seqs(base_url, key, run_id)
        if expected != list(range(1, len(expected) + 1)):
            figures.errors.append(f"run {run_id}: stored seqs are not 1..N")
        for seen in figures.streamed.get(run_id, []):
            lost += len(set(expected) - set(seen))
            duplicated += len(seen) - len(set(seen))
    finished = sum(1 for s in statuses if s not in {"timeout"})
    events = sum(len(seen) for lists in figures.streamed.values() for seen in lists)
    return {
        "case": "load", "runs": runs, "streams": streams, "runs_finished": finished,
        "end_statuses": {s: statuses.count(s) for s in sorted(set(statuses))}, "elapsed_s": round(elapsed, 2),
        "runs_per_s": round(finished / elapsed, 3), "events_streamed": events,
        "events_per_s": round(events / elapsed, 1),
        "create_run_p50_s": percentile(figures.latencies.get("create_run", []), 0.5),
        "create_run_p95_s": percentile(figures.latencies.get("create_run", []), 0.95),
        "get_run_p50_s": percentile(figures.latencies.get("get_run", []), 0.5),
        "get_run_p95_s": percentile(figures.latencies.get("get_run", []), 0.95),
        "get_run_requests": len(figures.latencies.get("get_run", [])),
        "stream_first_event_p95_s": percentile(figures.latencies.get("stream_first_event", []), 0.95),
        "event_delivery_p50_s": percentile(figures.delivery_s, 0.5),
        "event_delivery_p95_s": percentile(figures.delivery_s, 0.95),
        "errors": len(figures.errors), "error_samples": figures.errors[:5],
        "lost_events": lost, "duplicated_events": duplicated,
    }


def seed(users: int, runs_per_user: int) -> list[tuple[str, int]]:
    """Create bench users, each with a key and a small collection of the demo documents (BM25 only)."""
    from django.contrib.auth import get_user_model

    from evidence.auth_keys import create_key
    from evidence.ingest import jobs
    from evidence.models import Collection

    demo = sorted((ROOT / "evidence" / "demo").iterdir())
    seeded = []
    tag = uuid.uuid4().hex[:6]
    for n in range(users):
        user = get_user_model().objects.create_user(f"bench-{tag}-{n}", password=uuid.uuid4().hex)
        collection = Collection.objects.create(owner=user, name="Bench")
        job = jobs.create_job(collection, [(path.name, path.read_bytes()) for path in demo])
        jobs.process_all(job, embed=False)
        seeded.append((create_key(user, "bench", rate_per_minute=100_000)[1], collection.pk))
    return seeded


def prepare_database(url: str) -> None:
    import psycopg

    base, _, name = url.rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True,
                   env=os.environ.copy())


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout_s} s")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--system", default="pi_serini")
    parser.add_argument("--worker-threads", type=int, default=8)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request would drown the result
    port = int(os.environ.get("PG_PORT", "55432"))
    data_dir = Path(tempfile.mkdtemp(prefix="evidence-load-"))
    queue = f"evidence-load-{uuid.uuid4().hex[:8]}"
    os.environ.update({
        "DATABASE_URL": os.environ.get("EVIDENCE_BENCH_DATABASE_URL",
                                       f"postgresql://postgres@127.0.0.1:{port}/evidence_bench"),
        "EVIDENCE_DATA_DIR": str(data_dir), "EVIDENCE_TASK_QUEUE": queue,
        "EVIDENCE_BASE_SETTINGS": os.environ.get("DJANGO_SETTINGS_MODULE", "researchapp.settings"),
        "DJANGO_SETTINGS_MODULE": "tests.reliability.worker_settings",
    })
    prepare_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from tests.reliability.workers import Worker, _pythonpath, purge

    users = max(1, -(-args.runs // 4))  # four runs per user: under the default quota of five active runs
    seeded = seed(users, 4)
    worker = Worker(queue, data_dir / "worker.log", data_dir, concurrency=args.worker_threads)
    web_port = free_port()
    web_log = (data_dir / "web.log").open("ab")
    web = subprocess.Popen([sys.executable, "-m", "uvicorn", "researchapp.asgi:application", "--host", "127.0.0.1",
                            "--port", str(web_port), "--no-access-log", "--log-level", "warning"],
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": _pythonpath()}, stdout=web_log,
                           stderr=subprocess.STDOUT)
    try:
        worker.wait_ready()
        base = f"http://127.0.0.1:{web_port}"
        wait_http(f"{base}/api/openapi.json")  # any answer (401) means the server is up
        figures = asyncio.run(drive(base, seeded, args.runs, args.streams, args.timeout, args.system))
        figures["logs"] = str(data_dir)
        print(json.dumps(figures), flush=True)
    finally:
        web.terminate()
        web.wait(20)
        worker.stop()
        purge(queue)


if __name__ == "__main__":
    main()
