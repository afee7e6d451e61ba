"""The request hash: stable for identical requests, different for any change that could change the reply."""

import hashlib
import json
from dataclasses import replace

from evidence.agent.llm import ChatMessage, ChatRequest, ToolCall, ToolSpec, canonical_request, request_hash

TOOL = ToolSpec("search", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})


def build(question: str = "Does caffeine delay sleep?") -> ChatRequest:
    return ChatRequest(
        model="gpt-4o-mini",
        messages=[ChatMessage("system", "You are a research agent."), ChatMessage("user", question)],
        tools=[TOOL],
        temperature=0.0,
        max_tokens=500,
    )


def test_identical_requests_hash_identically():
    assert request_hash(build()) == request_hash(build())
    # Tuples or lists, and key order inside a schema, do not matter: only content does.
    reordered = ToolSpec("search", "Search.", {"properties": {"query": {"type": "string"}}, "type": "object"})
    assert request_hash(replace(build(), messages=tuple(build().messages), tools=(reordered,))) == request_hash(build())


def test_it_is_the_sha256_of_sorted_compact_json():
    expected = hashlib.sha256(
        json.dumps(canonical_request(build()), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    assert request_hash(build()) == expected
    assert set(canonical_request(build())) == {"model", "messages", "tools", "parameters"}


def test_the_canonical_form_does_not_drift():
    # Every recording is keyed by this hash: a change here breaks all replays, so it must be deliberate.
    assert request_hash(build()) == PINNED


def test_any_change_changes_the_hash():
    base = request_hash(build())
    variants = [
        build("Does caffeine delay sleep onset?"),
        replace(build(), model="gpt-4o"),
        replace(build(), temperature=0.2),
        replace(build(), max_tokens=501),
        replace(build(), tools=()),
        replace(build(), extra={"seed": 1}),
        replace(
            build(),
            messages=[
                *build().messages,
                ChatMessage(
                    "assistant", None, tool_calls=(ToolCall.create("call_1", "search", {"query": "caffeine"}),)
                ),
            ],
        ),
    ]
    hashes = {request_hash(v) for v in variants}
    assert base not in hashes and len(hashes) == len(variants)


PINNED = "2c7359a0df69f5eeca8dbd0a9c0df9318a6e31e9515539ce671229b85a47c88c"
