"""A run's event stream, written and read live: `writer` (the one writer: a gapless seq per run and a NOTIFY),
`broadcast` (one LISTEN per process fanned out to open streams, their reader threads, a cap per user), `sse` (the
server-sent-events loop, the response of a live stream and the API's JSON renderer) and `heartbeats` (liveness
beats from a thread). Other rooms import these names from here, never a module of the room (tested)."""

from .broadcast import (
    READERS,
    RETRY_AFTER_S,
    TOO_MANY,
    close_readers,
    max_streams_per_user,
    open_streams,
    read,
    reserve,
)
from .heartbeats import beating
from .sse import FINISHED_GRACE_S, Batch, event_stream, json_events, resume_point, sse_response
from .writer import CHANNEL, emit, events_after

__all__ = [
    "CHANNEL",
    "FINISHED_GRACE_S",
    "READERS",
    "RETRY_AFTER_S",
    "TOO_MANY",
    "Batch",
    "beating",
    "close_readers",
    "emit",
    "event_stream",
    "events_after",
    "json_events",
    "max_streams_per_user",
    "open_streams",
    "read",
    "reserve",
    "resume_point",
    "sse_response",
]
