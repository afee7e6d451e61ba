"""Pi-Serini's http-json response shapes as documented (SPEC section 3 and its typebox schemas), checked strictly.

Each shape maps a property to (JSON types, required, minimum); every object forbids extra properties, as the
agent's validator does. Written from the documented contract, not from our implementation.
"""

from __future__ import annotations

from typing import Any

NUMBER = (int, float)
Shape = dict[str, tuple[tuple[type, ...], bool, float | None]]

TIMING: Shape = {
    "request": (NUMBER, False, None),
    "backendInit": (NUMBER, False, None),
    "backendUptime": (NUMBER, False, None),
}
CAPABILITIES: Shape = {
    "backendId": ((str,), True, None),
    "supportsScore": ((bool,), True, None),
    "supportsSnippets": ((bool,), True, None),
    "supportsExactTotalHits": ((bool,), True, None),
    "maxPageSize": (NUMBER, False, 1),
    "maxReadLimit": (NUMBER, False, 1),
}
HIT: Shape = {
    "docid": ((str,), True, None),
    "score": (NUMBER, False, None),
    "title": ((str, type(None)), False, None),
    "snippet": ((str,), False, None),
    "snippetTruncated": ((bool,), False, None),
    "metadata": ((dict,), False, None),
}
SEARCH: Shape = {
    "hits": ((list,), True, None),
    "totalHits": (NUMBER, False, 0),
    "nextOffset": (NUMBER, False, 1),
    "hasMore": ((bool,), True, None),
    "timingMs": ((dict,), False, None),
}
READ_NOT_FOUND: Shape = {
    "found": ((bool,), True, None),
    "docid": ((str,), True, None),
    "timingMs": ((dict,), False, None),
}
READ_FOUND: Shape = {
    "found": ((bool,), True, None),
    "docid": ((str,), True, None),
    "text": ((str,), True, None),
    "title": ((str, type(None)), False, None),
    "offset": (NUMBER, True, 1),
    "limit": (NUMBER, True, 1),
    "totalUnits": (NUMBER, False, 0),
    "returnedOffsetStart": (NUMBER, False, 1),
    "returnedOffsetEnd": (NUMBER, False, 1),
    "truncated": ((bool,), True, None),
    "nextOffset": (NUMBER, False, 1),
    "metadata": ((dict,), False, None),
    "timingMs": ((dict,), False, None),
}


def problems(value: Any, shape: Shape, where: str = "$") -> list[str]:
    """Return what in `value` breaks `shape` (empty when it conforms)."""
    if not isinstance(value, dict):
        return [f"{where} is not an object"]
    out = [f"{where}.{key} is not allowed" for key in value if key not in shape]
    for key, (types, required, minimum) in shape.items():
        if key not in value:
            if required:
                out.append(f"{where}.{key} is missing")
            continue
        item = value[key]
        # JSON has no separate bool: a number field must not accept true/false.
        if not isinstance(item, types) or (bool not in types and isinstance(item, bool)):
            out.append(f"{where}.{key} has type {type(item).__name__}")
        elif minimum is not None and item < minimum:
            out.append(f"{where}.{key} = {item} is below {minimum}")
    return out


def search_problems(body: Any) -> list[str]:
    out = problems(body, SEARCH)
    if isinstance(body, dict):
        for i, hit in enumerate(body.get("hits") or []):
            out += problems(hit, HIT, f"$.hits[{i}]")
            if isinstance(hit, dict) and not hit.get("docid"):
                out.append(f"$.hits[{i}].docid is empty")
        if "timingMs" in body:
            out += problems(body["timingMs"], TIMING, "$.timingMs")
    return out


def read_problems(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return ["$ is not an object"]
    if body.get("found") is False:
        out = problems(body, READ_NOT_FOUND)
    elif body.get("found") is True:
        out = problems(body, READ_FOUND)
        start, end = body.get("returnedOffsetStart"), body.get("returnedOffsetEnd")
        if start is not None and end is not None and start > end:
            out.append(f"$ returns an impossible range {start}-{end}")
    else:
        return ["$.found must be true or false"]
    if "timingMs" in body:
        out += problems(body["timingMs"], TIMING, "$.timingMs")
    return out
