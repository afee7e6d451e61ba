"""Per-key rate limits: a token bucket in Redis (capacity = rate per minute, refilled continuously)."""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from functools import lru_cache

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

log = logging.getLogger(__name__)

# One atomic step: refill by elapsed time (Redis' own clock, so every web process agrees), then take a token.
# Numbers go back as strings because Redis truncates Lua numbers to integers.
TAKE = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = (1 - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) + 60)
return {allowed, tostring(wait), tostring(tokens)}
"""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after_s: int  # whole seconds, >= 1 when refused (the Retry-After header)
    remaining: int


OUTAGE_SKIP_S = 5.0  # after a Redis error, don't try again for this long (each try could cost a timeout)
_down_until = 0.0


def connect(url: str) -> redis.Redis:
    """Return a client that fails fast: a rate limit must never hold a request up."""
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))


@lru_cache(maxsize=1)
def _script():
    return connect(settings.REDIS_URL).register_script(TAKE)


def bucket_name(kind: str, ident: object) -> str:
    """Return the Redis key of a bucket; the database name keeps test and dev buckets apart."""
    database = settings.DATABASES["default"].get("NAME", "")
    return f"evidence:ratelimit:{database}:{kind}:{ident}"


def take(bucket: str, rate_per_minute: int) -> Decision:
    """Take one token from a bucket holding up to `rate_per_minute` tokens; fail open if Redis is down."""
    global _down_until
    capacity = max(1, int(rate_per_minute))
    if time.monotonic() < _down_until:
        return Decision(True, 0, capacity)
    try:
        allowed, wait, tokens = _script()(keys=[bucket], args=[capacity, capacity / 60.0])
    except redis.RedisError as error:
        # Refusing every API call while Redis restarts would turn a broker blip into an outage; the limit
        # protects capacity, not secrets, so it is skipped (for a few seconds) and the gap logged.
        _down_until = time.monotonic() + OUTAGE_SKIP_S
        log.warning("rate limit skipped for %.0f s, Redis unavailable: %s", OUTAGE_SKIP_S, error)
        return Decision(True, 0, capacity)
    return Decision(bool(int(allowed)), max(1, math.ceil(float(wait))) if not int(allowed) else 0, int(float(tokens)))
