"""System 2's model client: one `complete(request)` interface over openai, replay and offline providers.

Build one with `make_client(provider, recorder=..., cap=...)`; `recording.DjangoRecorder` stores calls as
ModelCall rows (imported from its module, so this package stays importable without Django).
"""

from .budget import SpendingCap
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
from .recorder import MemoryRecorder, Recorder
from .replay import ReplayClient
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
