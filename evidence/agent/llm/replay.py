"""The `replay` provider: answer from recorded calls by request hash, with no server and no key."""

from __future__ import annotations

import time
from collections.abc import Mapping

from .errors import ReplayMissing, UnknownModelPrice
from .pricing import FREE, Price, price_for, worst_case_cost
from .records import Recorder
from .spend import SpendingCap
from .types import CallRecord, ChatRequest, ChatResponse, canonical_request, request_hash


class ReplayClient:
    """Serve recorded replies from `source`; record each served call to `recorder` as provider 'replay'.

    The spending cap sees the same worst cases and the recorded costs, so a replayed run stops for budget
    exactly where the original did. Pass the same `prices` the original used for models outside the table;
    a model with no price at all can only have run on a free local server, so it counts as free here.
    """

    provider = "replay"

    def __init__(
        self,
        source: Recorder,
        *,
        recorder: Recorder | None = None,
        cap: SpendingCap | None = None,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self.source = source
        self.recorder = recorder
        self.cap = cap
        self.prices = dict(prices or {})
        self.calls = 0

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Return the recorded reply for this exact request, or raise ReplayMissing naming the call."""
        self.calls += 1
        digest = request_hash(request)
        worst = worst_case_cost(request, price=self._price(request.model))
        if self.cap is not None:
            self.cap.reserve(worst)
        actual = 0.0
        started = time.perf_counter()
        try:
            found = self.source.lookup(digest)
            if found is None or found.response is None:
                raise ReplayMissing(missing_message(request, digest, self.calls))
            actual = found.cost_usd
        finally:
            if self.cap is not None:
                self.cap.settle(worst, actual)
        if self.recorder is not None:
            self.recorder.record(
                CallRecord(
                    request_hash=digest,
                    provider=self.provider,
                    model=request.model,
                    attempt=1,
                    request=canonical_request(request),
                    response=found.response,
                    input_tokens=found.input_tokens,
                    cached_tokens=found.cached_tokens,
                    output_tokens=found.output_tokens,
                    cost_usd=found.cost_usd,  # what the original paid: the cap and run spend replay it
                    latency_s=time.perf_counter() - started,
                )
            )
        return ChatResponse.from_dict(found.response)

    def _price(self, model: str) -> Price:
        try:
            return price_for(model, prices=self.prices)
        except UnknownModelPrice:
            return FREE


def missing_message(request: ChatRequest, digest: str, index: int) -> str:
    """Describe a call that has no recording: its index in the run, model, hash prefix and last message."""
    last = request.messages[-1] if request.messages else None
    if last is None:
        said = "(no messages)"
    else:
        text = last.content or " ".join(f"{call.name}({call.raw_arguments})" for call in last.tool_calls)
        said = f"{last.role}: {text[:80]!r}"
    return (
        f"no recorded reply for call #{index} of this run (model {request.model}, request {digest[:12]}); "
        f"last message {said}. The prompt, tools or parameters changed since the recording: "
        "undo the change, or record the run again with a key"
    )
