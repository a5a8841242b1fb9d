"""Model providers only: typed stream events, the ChatProvider interface, the OpenAI-compatible client, keys.

Modules:

* :mod:`app.llm.events` — the stream events (TextDelta, ReasoningDelta, UsageReport, Retrying, Finished,
  StreamFailed) and ChatResult;
* :mod:`app.llm.base` — ChatMessage, ChatRequest, the ChatProvider / EventStream protocols, ``collect``;
* :mod:`app.llm.errors` — ProviderError and its subclasses;
* :mod:`app.llm.openai_compat` — the streaming HTTP client (imports httpx), retries, the shared client;
* :mod:`app.llm.stage` — StageInfo: which stage a request belongs to, as data (never sent);
* :mod:`app.llm.registry` — provider name → factory (the offline analyst registers from :mod:`app.analyst`);
* :mod:`app.llm.factory` — build a provider from the settings; :mod:`app.secrets` — API keys in the keyring;
* :mod:`app.llm.probe` — one short request to check an endpoint (CLI ``provider test``, settings page).

Import the light public types from here.
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
