"""Errors of model providers: what went wrong, which provider and model, and whether a retry can help.

Every error names the provider and the model so the user knows which setting to fix. None of them ever holds or
prints an API key: messages are built from the status line, the server's error message and our own text only.
"""

from __future__ import annotations

import re

from app.errors import KnownError

_LIMIT_PATTERNS = (
    # OpenAI and vLLM: "This model's maximum context length is 8192 tokens. However, you requested …"
    re.compile(r"maximum context length is\s*(\d[\d,]*)", re.IGNORECASE),
    # LM Studio: "… the model is loaded with context length of only 4096 tokens"; others: "context length of 4096"
    re.compile(r"context (?:length|window|size) of (?:only )?(\d[\d,]*)", re.IGNORECASE),
    # Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
    re.compile(r">\s*(\d[\d,]*)\s*maximum", re.IGNORECASE),
    # llama.cpp server: "n_ctx": 4096 in the error object (see ContextOverflowError.context_limit)
    re.compile(r"\bn_ctx\b\D{0,4}(\d+)", re.IGNORECASE),
)


def context_limit_in(text: str) -> int | None:
    """The context length a server's length refusal states ("maximum context length is N" style), if any."""
    for pattern in _LIMIT_PATTERNS:
        match = pattern.search(text)
        if match:
            value = int(match.group(1).replace(",", ""))
            if value > 0:
                return value
    return None


class ProviderError(KnownError):
    """A model request failed.

    Attributes:
        provider: the provider's display name (e.g. ``DeepSeek``).
        model: the model id that was requested.
        status: the HTTP status, or None when no response arrived.
        detail: the server's own error text (trimmed), or our description.
        retryable: whether the client may try again before content arrived (429, 5xx, network).
        retry_after_s: the delay the server asked for (``Retry-After`` / ``retry-after-ms``), if any.
    """

    retryable_by_default = False
    kind = "provider"

    def __init__(
        self,
        provider: str,
        model: str,
        detail: str,
        *,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.detail = detail
        self.status = status
        self.retryable = self.retryable_by_default if retryable is None else retryable
        self.retry_after_s = retry_after_s
        super().__init__(self._message())

    def _message(self) -> str:
        status = f" (HTTP {self.status})" if self.status is not None else ""
        wait = f" (the server asks to retry after {self.retry_after_s:.0f} s)" if self.retry_after_s else ""
        return f"{self.provider} / {self.model}: {self.headline}{status}: {self.detail}{wait}"

    @property
    def headline(self) -> str:
        """Short English description of the error class (the UI adds a translated one by ``kind``)."""
        return "request failed"

    @property
    def short(self) -> str:
        """A few words for a progress line: ``HTTP 503``, or the headline when no response arrived."""
        return f"HTTP {self.status}" if self.status is not None else self.headline


class AuthError(ProviderError):
    """401/403: the API key is missing, wrong or lacks access. Never retried."""

    kind = "auth"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "authentication failed, check the API key"


class ModelNotFoundError(ProviderError):
    """404: the base URL or the model id is wrong. Never retried."""

    kind = "not_found"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "endpoint or model not found, check the base URL and model id"


class RateLimitError(ProviderError):
    """429: too many requests or quota exhausted; retried honouring ``Retry-After``."""

    retryable_by_default = True
    kind = "rate_limit"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "rate limited"


class ServerError(ProviderError):
    """408/409/5xx or an error object inside the stream: the server failed; retried before content."""

    retryable_by_default = True
    kind = "server"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "server error"


class NetworkError(ProviderError):
    """No connection, a reset, or a read timeout; retried before content."""

    retryable_by_default = True
    kind = "network"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "network error"


class StalledError(NetworkError):
    """A deadline passed: no first token, no content for too long (keep-alives do not count), or a too long reply.

    Retried like a network error before content; after content the reply ends as *stalled* with what arrived.
    """

    kind = "stalled"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "the server stalled"


class ProtocolError(ProviderError):
    """The response is not a valid OpenAI-compatible reply (malformed SSE or JSON, wrong content type)."""

    kind = "protocol"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "invalid response"


class ContextOverflowError(ProviderError):
    """400 because the prompt exceeds the model's context: the budget must shrink, a retry cannot help.

    Attributes:
        context_limit: The context length the server stated in its refusal (None when it did not say).
    """

    kind = "context_overflow"

    @property
    def context_limit(self) -> int | None:
        """The server's context length as its refusal states it."""
        return context_limit_in(self.detail)

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "prompt exceeds the model's context length"


class BadRequestError(ProviderError):
    """Another 4xx: the server rejected the request's parameters. Never retried."""

    kind = "bad_request"

    @property
    def headline(self) -> str:
        """See :attr:`ProviderError.headline`."""
        return "request rejected"


class ProviderConfigError(KnownError):
    """A provider setting is unusable (empty base URL, unknown profile, missing key) — raised before any request."""
