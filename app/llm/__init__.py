"""Model providers: typed stream events, the ChatProvider interface, the OpenAI-compatible client, settings.

Import the light public types from here; the HTTP client lives in :mod:`app.llm.openai_compat` (imports httpx).
"""

from app.llm.base import ChatMessage, ChatProvider, ChatRequest, EventStream, collect
from app.llm.errors import ProviderError
from app.llm.events import (
    ChatResult,
    Finished,
    ReasoningDelta,
    Retrying,
    StreamEvent,
    StreamFailed,
    TextDelta,
    UsageReport,
)

__all__ = [
    "ChatMessage",
    "ChatProvider",
    "ChatRequest",
    "ChatResult",
    "EventStream",
    "Finished",
    "ProviderError",
    "ReasoningDelta",
    "Retrying",
    "StreamEvent",
    "StreamFailed",
    "TextDelta",
    "UsageReport",
    "collect",
]
