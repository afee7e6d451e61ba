"""System 2's model client: one `complete(request)` interface over openai, replay and offline providers.

Build one with `make_client(provider, recorder=..., cap=...)`; `DjangoRecorder` stores calls as ModelCall rows
(it imports Django only when used, so this package stays importable without it).
"""

from .client import PROVIDERS, LLMClient, OfflineClient, make_client
from .conversation import Conversation, FinalAnswer, parse_final_answer
from .errors import (
    BudgetExceeded,
    LLMError,
    LLMHTTPError,
    LLMUnavailable,
    OfflineLLMError,
    ReplayMissing,
    UnknownModelPrice,
)
from .openai_compat import OpenAIClient
from .pricing import PRICES, Price, cost, price_for, worst_case_cost
from .records import DjangoRecorder, MemoryRecorder, Recorder
from .replay import ReplayClient
from .spend import SpendingCap
from .types import (
    CallRecord,
    ChatMessage,
    ChatRequest,
    ChatResponse,
    ToolCall,
    ToolSpec,
    Usage,
    canonical_request,
    request_hash,
)

__all__ = [
    "PRICES",
    "PROVIDERS",
    "BudgetExceeded",
    "CallRecord",
    "ChatMessage",
    "ChatRequest",
    "ChatResponse",
    "Conversation",
    "DjangoRecorder",
    "FinalAnswer",
    "LLMClient",
    "LLMError",
    "LLMHTTPError",
    "LLMUnavailable",
    "MemoryRecorder",
    "OfflineClient",
    "OfflineLLMError",
    "OpenAIClient",
    "Price",
    "Recorder",
    "ReplayClient",
    "ReplayMissing",
    "SpendingCap",
    "ToolCall",
    "ToolSpec",
    "UnknownModelPrice",
    "Usage",
    "canonical_request",
    "cost",
    "make_client",
    "parse_final_answer",
    "price_for",
    "request_hash",
    "worst_case_cost",
]
