"""200 page streams from one user: no 5xx, a cap per user, bounded Postgres connections, a time limit."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from evidence import streams
from evidence.models import Run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

STREAMS = 200


def run_in_fresh_loop(coroutine):
    """asyncio.run in a thread of its own: after a browser test, Playwright's loop is running in this one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def backends_besides(test_pid: int) -> int:
    """Count the other Postgres backends on the test database: the server's, not this test's own connections."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid NOT IN (%s, pg_backend_pid())",
                [test_pid],
            )
            return cursor.fetchone()[0]
    finally:
        if threading.current_thread() is not threading.main_thread():
            connection.close()  # a sampling thread's own connection


def running(run: Run) -> Run:
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    return run


async def open_streams(url: str, cookies: dict[str, str], count: int, hold_s: float, sample) -> list:
    """Open `count` streams at once, hold the open ones `hold_s` seconds (sampling meanwhile); return outcomes."""
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(cookies=cookies, timeout=30, limits=limits) as client:
        held: list = []

        async def one() -> tuple[int, str]:
            try:
                request = client.build_request("GET", url)
                response = await client.send(request, stream=True)
            except httpx.HTTPError as error:
                return -1, type(error).__name__
            if response.status_code != 200:
                body = (await response.aread()).decode()
                await response.aclose()
                return response.status_code, body
            chunks = response.aiter_text()
            first = await anext(chunks)
            held.append((response, chunks))  # the iterator too: collecting it would close the stream
            return 200, first

        outcomes = await asyncio.gather(*(one() for _ in range(count)))
        during = await asyncio.to_thread(sample)
        await asyncio.sleep(hold_s)
        for response, chunks in held:
            await chunks.aclose()
            await response.aclose()
        return [*outcomes, ("during", during)]


def test_200_page_streams_from_one_user_get_no_5xx_and_few_connections(asgi_server, session_cookie, run, user):
    running(run)
    test_pid = backend_pid()
    before = backends_besides(test_pid)
    url = f"{asgi_server}/runs/{run.pk}/stream"

    started = time.perf_counter()
    sample = lambda: backends_besides(test_pid)  # noqa: E731
    *outcomes, (_, during) = run_in_fresh_loop(open_streams(url, session_cookie, STREAMS, 2.5, sample))
    elapsed = time.perf_counter() - started
    statuses = Counter(status for status, _ in outcomes)
    deadline = time.monotonic() + 5
    while streams.open_streams(user.pk) and time.monotonic() < deadline:
        time.sleep(0.05)
    after = backends_besides(test_pid)
    print(f"\n{STREAMS} page streams in {elapsed:.1f} s: {dict(statuses)}; "
          f"Postgres backends before {before}, while open {during}, after {after}")

    cap = streams.max_streams_per_user()
    assert not [s for s in statuses if s >= 500 or s < 0], statuses
    assert statuses == {200: cap, 429: STREAMS - cap}
    assert all(body.startswith("retry:") for status, body in outcomes if status == 200)
    assert all("live event streams open" in body for status, body in outcomes if status == 429)
    # One LISTEN and at most READERS readers, however many streams: not one connection per stream.
    assert during - before <= streams.READERS + 1
    assert streams.open_streams(user.pk) == 0  # closed streams free their slots
    assert after - before <= streams.READERS + 1


def test_streams_still_deliver_events_through_the_shared_listener(asgi_server, session_cookie, run, in_thread):
    running(run)

    def later() -> None:
        time.sleep(0.5)
        streams.emit(run.pk, "search", {"query": "q1", "top": []})
        Run.objects.filter(pk=run.pk).update(status=Run.Status.ANSWERED, finished_at=timezone.now())
        streams.emit(run.pk, "finished", {"status": "answered", "error": "", "funnel": {}, "elapsed_s": 1})

    async def watch(client: httpx.AsyncClient) -> str:
        async with client.stream("GET", f"{asgi_server}/runs/{run.pk}/stream") as response:
            text = ""
            async for chunk in response.aiter_text():
                text += chunk
                if "event: finished" in text:
                    return text
        return text

    async def main() -> list[str]:
        async with httpx.AsyncClient(cookies=session_cookie, timeout=20) as client:
            return await asyncio.gather(*(watch(client) for _ in range(5)))

    thread = in_thread(later)
    texts = run_in_fresh_loop(main())
    thread.join()
    assert all("event: step" in text and "event: finished" in text for text in texts)


def test_a_page_stream_ends_at_its_time_limit(asgi_server, session_cookie, run, settings):
    settings.EVIDENCE_PAGE_SSE_MAX_S = 1.0
    running(run)
    started = time.monotonic()
    with httpx.stream("GET", f"{asgi_server}/runs/{run.pk}/stream", cookies=session_cookie, timeout=10) as response:
        assert response.status_code == 200
        body = "".join(response.iter_text())
    took = time.monotonic() - started
    assert 0.9 < took < 4, took
    assert body.startswith("retry: 1000")  # the browser reconnects a second later, resuming by Last-Event-ID
    assert "event: finished" not in body
