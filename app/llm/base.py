"""The provider interface: chat messages, a request, and the :class:`ChatProvider` protocol.

Every model source — an OpenAI-compatible endpoint (:mod:`app.llm.openai_compat`) or the rule-based offline
analyst — implements :class:`ChatProvider`, so the pipeline never knows which one it talks to.

:class:`ChatMessage` deliberately has no ``reasoning_content`` field: reasoning a model streamed is shown and
counted but never sent back (DeepSeek's reasoner rejects it with a 400, and the plan forbids rewriting it), and
the type makes that impossible to get wrong.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Protocol, Self, runtime_checkable

from app.llm.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    ModelNotFoundError,
    NetworkError,
    ProtocolError,
    ProviderConfigError,
    ProviderError,
    RateLimitError,
    ServerError,
)
from app.llm.events import ChatResult, StreamEvent
from app.llm.stage import StageInfo

__all__ = [
    "AuthError",
    "BadRequestError",
    "ChatMessage",
    "ChatProvider",
    "ChatRequest",
    "ContextOverflowError",
    "EventStream",
    "ModelNotFoundError",
    "NetworkError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderError",
    "RateLimitError",
    "Role",
    "ServerError",
    "StageInfo",
    "collect",
]

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of the conversation sent to the model (text only; reasoning is never sent back)."""

    role: Role
    content: str

    def to_json(self) -> dict[str, str]:
        """The OpenAI wire form."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat completion request.

    Attributes:
        messages: the conversation, system message first.
        max_tokens: output limit (reasoning tokens count against it); None lets the profile decide.
        temperature: sampling temperature; None leaves the server default (reasoning models reject some values).
        stream: stream the reply (SSE); None uses the profile's setting. A non-streamed reply yields the same events.
        tag: free label for logs and the scripted server (sent as the ``user`` field only if ``send_tag``).
        extra_body: additional JSON fields merged into the request body (e.g. ``top_p``).
        send_tag: send ``tag`` as the OpenAI ``user`` field.
        stage: what the pipeline asks for, as data (never sent; rule-based providers read it, see
            :mod:`app.llm.stage`).
    """

    messages: tuple[ChatMessage, ...]
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool | None = None
    tag: str = ""
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    send_tag: bool = False
    stage: StageInfo | None = None

    @classmethod
    def simple(cls, prompt: str, *, system: str | None = None, max_tokens: int | None = None) -> ChatRequest:
        """A one-turn request (handy for probes and tests)."""
        msgs: list[ChatMessage] = []
        if system:
            msgs.append(ChatMessage("system", system))
        msgs.append(ChatMessage("user", prompt))
        return cls(messages=tuple(msgs), max_tokens=max_tokens)


@runtime_checkable
class EventStream(Protocol):
    """An async iterator of :data:`StreamEvent` that must be closed if not consumed to the end.

    Use ``async with provider.stream(req) as events: async for ev in events: ...`` or call ``aclose()`` in a
    ``finally``; closing is idempotent and stops the HTTP request at once.
    """

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        """Iterate the events."""
        ...

    async def __anext__(self) -> StreamEvent:
        """The next event; raises StopAsyncIteration after the terminal event."""
        ...

    async def aclose(self) -> None:
        """Stop the request and release the connection (idempotent)."""
        ...

    async def __aenter__(self) -> Self:
        """Enter: returns the stream itself."""
        ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Exit: closes the stream."""
        ...


@runtime_checkable
class ChatProvider(Protocol):
    """A source of streamed model replies.

    Attributes:
        name: display name of the provider (profile name), used in errors and the UI.
        model: the model id requested.
        rule_based: True for the offline analyst, which the UI must label as rule-based, never as an LLM.
    """

    @property
    def name(self) -> str:
        """Display name of the provider."""
        ...

    @property
    def model(self) -> str:
        """Model id requested."""
        ...

    @property
    def rule_based(self) -> bool:
        """True when replies come from rules, not from a language model."""
        ...

    def stream(self, request: ChatRequest) -> EventStream:
        """Start one request; the returned stream yields events and ends with Finished or StreamFailed."""
        ...

    async def aclose(self) -> None:
        """Release shared resources (the HTTP client); the provider is unusable afterwards."""
        ...


async def collect(stream: EventStream) -> ChatResult:
    """Consume a whole stream into a :class:`ChatResult` (closing it whatever happens)."""
    result = ChatResult()
    async with stream:
        async for event in stream:
            result.add(event)
    return result
