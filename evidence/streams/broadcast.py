"""One Postgres LISTEN connection per process, fanned out to every open event stream; a cap per user.

A stream used to hold a LISTEN connection of its own, so 200 open pages from one user took 200 Postgres
connections and the rest of the site got "too many clients". Now each process holds one listening connection
(reconnecting when it drops) and wakes the streams of the run a NOTIFY names; streams read their events by
cursor through a small pool of reader threads, so a missed wake-up delays an event by one tick, never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from .writer import CHANNEL

log = logging.getLogger(__name__)

READERS = 4  # Postgres connections the streams of one process read through, however many streams are open
RECONNECT_MAX_S = 5.0
_reader_pool = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="stream-read")


def _read_with_retry[T](fn: Callable[..., T], *args: Any) -> T:
    """Run a read on this reader thread's Django connection, reconnecting once if the database dropped it."""
    try:
        return fn(*args)
    except (OperationalError, InterfaceError):
        connection.close()
        return fn(*args)


async def read[T](fn: Callable[..., T], *args: Any) -> T:
    """Run a synchronous database read for a stream on one of the READERS threads."""
    return await sync_to_async(_read_with_retry, thread_sensitive=False, executor=_reader_pool)(fn, *args)


def close_readers() -> None:
    """Close the reader threads' database connections (a test server's end: its database is about to go)."""
    everyone = threading.Barrier(READERS, timeout=5)

    def close() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            everyone.wait()  # holds this thread, so each of the READERS threads runs one close
        connection.close()

    for future in [_reader_pool.submit(close) for _ in range(READERS)]:
        future.result(timeout=10)


class Broadcaster:
    """Listen on the event channel once and wake the queues subscribed to each run."""

    def __init__(self, conninfo: Callable[[], str]) -> None:
        self.conninfo = conninfo
        self.subscribers: dict[int, set[asyncio.Queue[None]]] = defaultdict(set)
        self.task: asyncio.Task | None = None
        self.listening = asyncio.Event()

    def subscribe(self, run_id: int) -> asyncio.Queue[None]:
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)  # one pending wake-up is enough: reads are by cursor
        self.subscribers[run_id].add(queue)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.listen(), name="evidence-listen")
        return queue

    def unsubscribe(self, run_id: int, queue: asyncio.Queue[None]) -> None:
        queues = self.subscribers.get(run_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self.subscribers[run_id]

    def wake(self, run_ids: list[int] | None = None) -> None:
        """Wake the streams of these runs (all streams when None)."""
        targets = self.subscribers.values() if run_ids is None else [self.subscribers.get(r, ()) for r in run_ids]
        for queues in list(targets):
            for queue in list(queues):
                if queue.empty():
                    queue.put_nowait(None)

    async def listen(self) -> None:
        delay = 0.2
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.conninfo(), autocommit=True)
            except psycopg.OperationalError as error:
                log.warning("event listener cannot connect (%s): retrying in %.1f s", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX_S)
                continue
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
                self.listening.set()
                delay = 0.2
                # Anything committed while no one listened is caught up by cursor: every stream re-reads.
                self.wake()
                async for note in conn.notifies():
                    run_id = note.payload.partition(":")[0]
                    if run_id.isdecimal():
                        self.wake([int(run_id)])
            except psycopg.Error as error:
                log.warning("event listener lost its connection (%s): reconnecting", error)
            finally:
                self.listening.clear()
                await conn.close()


_broadcasters: dict[int, Broadcaster] = {}


def broadcaster() -> Broadcaster:
    """Return this event loop's broadcaster (one per process under uvicorn; tests may run several loops)."""

    loop = asyncio.get_running_loop()
    found = _broadcasters.get(id(loop))
    if found is None or (found.task is not None and found.task.get_loop() is not loop):
        found = _broadcasters[id(loop)] = Broadcaster(conninfo)
    return found


async def wait_for_wake(queue: asyncio.Queue[None], timeout_s: float) -> bool:
    """Wait until the queue is woken or the timeout passes; tell which."""
    try:
        await asyncio.wait_for(queue.get(), timeout_s)
    except TimeoutError:
        return False
    return True


# ------------------------------------------------------------------ the per-user cap

_open: dict[int, int] = defaultdict(int)
_open_lock = threading.Lock()  # released from the thread that closes the response


def max_streams_per_user() -> int:
    return int(settings.EVIDENCE_SSE_MAX_PER_USER)


def reserve(user_id: int) -> Callable[[], None] | None:
    """Count one more open stream for the user; return its release, or None when the user is at the cap."""
    with _open_lock:
        if _open[user_id] >= max_streams_per_user():
            return None
        _open[user_id] += 1
    released = False

    def release() -> None:
        nonlocal released
        with _open_lock:
            if not released:
                released = True
                _open[user_id] -= 1
                if _open[user_id] <= 0:
                    del _open[user_id]

    return release


def open_streams(user_id: int) -> int:
    return _open.get(user_id, 0)


TOO_MANY = (
    "You have {n} live event streams open, the most one user may: close some run pages or API streams, or "
    "poll the run's events instead."
)
RETRY_AFTER_S = 10


def conninfo() -> str:
    """Return the connection string of Django's default database (the test database under pytest)."""
    from django.db import connections

    s = connections["default"].settings_dict
    return psycopg.conninfo.make_conninfo(
        dbname=s["NAME"],
        user=s.get("USER") or None,
        password=s.get("PASSWORD") or None,
        host=s.get("HOST") or None,
        port=str(s["PORT"]) if s.get("PORT") else None,
    )
